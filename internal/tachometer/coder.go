package tachometer

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/apache/arrow/go/v17/parquet"
)

// columnCoder codes one column's values for the whole file.
type columnCoder struct {
	rows []int32 // codes of the batch being decoded, by row

	byText  map[string]int32
	byBits  map[uint64]int32 // numbers and bounds, by their float64 or integer bits
	texts   []string         // code-1 → text (not for the bound column)
	bounds  []float64        // code-1 → bound (the bound column)
	bound   bool             // the bucket bound column: codes float64 bits
	upper32 bool             // the bound column is float32

	lastBits uint64 // the number coded last, which consecutive rows often repeat
	lastCode int32
	empty    int32 // code of the empty text, often in identity columns; 0 until seen
	memo     dictMemo
	// one is the code every row of the batch being decoded holds, when its
	// decoder could tell (textPages); negative otherwise (oneMixed, or
	// oneUnset before the batch's first rows).
	one int32
}

const (
	oneMixed = -1
	oneUnset = -2
)

func newColumnCoder(bound bool) *columnCoder {
	return &columnCoder{byText: map[string]int32{}, byBits: map[uint64]int32{}, bound: bound, one: oneMixed}
}

// segment records the codes of some rows of the batch: all code when one
// is set, else codes the coder did not check.
func (c *columnCoder) segment(code int32, one bool) {
	switch {
	case !one:
		c.one = oneMixed
	case c.one == oneUnset:
		c.one = code
	case c.one != code:
		c.one = oneMixed
	}
}

// codes is how many non-null codes the column has given.
func (c *columnCoder) codes() int {
	if c.bound {
		return len(c.bounds)
	}
	return len(c.texts)
}

// text returns the code of a text value. Looking b up with string(b)
// does not allocate; the text is copied only the first time it is seen.
func (c *columnCoder) text(b []byte) int32 {
	if code, ok := c.byText[string(b)]; ok {
		return code
	}
	s := string(b)
	c.texts = append(c.texts, s)
	code := int32(len(c.texts))
	c.byText[s] = code
	return code
}

// textString is text for a string that aliases decoder memory.
func (c *columnCoder) textString(s string) int32 {
	return c.text(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// textValues codes one batch of a ByteArray column into rows[at:], values
// holding the non-null ones. dict says every value points into the column
// chunk's dictionary, so that equal values share an address and a value
// can be coded by its address without reading its bytes.
func (c *columnCoder) textValues(at int, values []parquet.ByteArray, valid validity, dict bool) {
	if !dict {
		k := 0
		for i := range valid.n {
			if !valid.ok(i) {
				c.rows[at+i] = 0
				continue
			}
			c.rows[at+i] = c.text(values[k])
			k++
		}
		return
	}
	// Dictionary pages: consecutive rows mostly repeat a value, so the loop
	// compares addresses and looks one up only when it changes. A required
	// column (no definition levels) takes the loop without null checks.
	rows := c.rows[at : at+valid.n]
	var last *byte
	lastLen, lastCode := int32(-1), int32(0) // no value yet: even an empty one differs
	if valid.defs == nil {
		for i, v := range values[:len(rows)] {
			p, n := unsafe.SliceData(v), int32(len(v))
			if p != last || n != lastLen {
				last, lastLen, lastCode = p, n, c.dictCode(v)
			}
			rows[i] = lastCode
		}
		return
	}
	k := 0
	for i, d := range valid.defs[:len(rows)] {
		if d != 1 {
			rows[i] = 0
			continue
		}
		v := values[k]
		k++
		p, n := unsafe.SliceData(v), int32(len(v))
		if p != last || n != lastLen {
			last, lastLen, lastCode = p, n, c.dictCode(v)
		}
		rows[i] = lastCode
	}
}

// dictCode is the code of a value of a dictionary page, remembered by its
// address for the rest of the column chunk.
func (c *columnCoder) dictCode(v []byte) int32 {
	if len(v) == 0 {
		if c.empty == 0 {
			c.empty = c.text(v)
		}
		return c.empty
	}
	p, n := unsafe.SliceData(v), int32(len(v))
	code := c.memo.get(p, n)
	if code == 0 {
		code = c.text(v)
		c.memo.put(p, n, code)
	}
	return code
}

// number returns the code of a numeric identity value or bound; format
// gives its text the first time it is seen.
func (c *columnCoder) number(bits uint64, format func(uint64) string) int32 {
	if bits == c.lastBits && c.lastCode != 0 {
		return c.lastCode
	}
	code, ok := c.byBits[bits]
	if !ok {
		if c.bound {
			c.bounds = append(c.bounds, math.Float64frombits(bits))
			code = int32(len(c.bounds))
		} else {
			c.texts = append(c.texts, format(bits))
			code = int32(len(c.texts))
		}
		c.byBits[bits] = code
	}
	c.lastBits, c.lastCode = bits, code
	return code
}

// Texts of numeric identity columns, as the reference implementation
// stringifies them with Python's str().
func signedText(bits uint64) string   { return strconv.FormatInt(int64(bits), 10) }
func unsignedText(bits uint64) string { return strconv.FormatUint(bits, 10) }
func floatText(bits uint64) string    { return pyFloatText(math.Float64frombits(bits)) }
func boolText(bits uint64) string {
	if bits != 0 {
		return "True"
	}
	return "False"
}

// dictMemo maps the address and length of a dictionary entry of the current
// column chunk to its code. Holding the addresses as pointers keeps the
// dictionary alive, so an address cannot be reused for other bytes while it
// is remembered; reset forgets them when the chunk ends. Its size is capped,
// so a huge dictionary costs hashing, not memory.
type dictMemo struct {
	slots []memoSlot
	used  int
}

type memoSlot struct {
	p    *byte
	n    int32
	code int32
}

const memoLimit = 1 << 16

func (m *dictMemo) reset() {
	clear(m.slots)
	m.used = 0
}

func memoHash(p *byte) uint64 {
	h := uint64(uintptr(unsafe.Pointer(p))) * 0x9E3779B97F4A7C15
	return h ^ h>>32
}

// get returns the code remembered for (p, n), or 0.
func (m *dictMemo) get(p *byte, n int32) int32 {
	if len(m.slots) == 0 {
		return 0
	}
	mask := uint64(len(m.slots) - 1)
	for s := memoHash(p) & mask; ; s = (s + 1) & mask {
		slot := &m.slots[s]
		if slot.p == p && slot.n == n {
			return slot.code
		}
		if slot.p == nil {
			return 0
		}
	}
}

func (m *dictMemo) put(p *byte, n, code int32) {
	if m.used >= memoLimit {
		return
	}
	if (m.used+1)*2 > len(m.slots) {
		old := m.slots
		m.slots = make([]memoSlot, max(256, 2*len(old)))
		m.used = 0
		for _, s := range old {
			if s.p != nil {
				m.insert(s)
			}
		}
	}
	m.insert(memoSlot{p, n, code})
}

func (m *dictMemo) insert(s memoSlot) {
	mask := uint64(len(m.slots) - 1)
	i := memoHash(s.p) & mask
	for m.slots[i].p != nil {
		i = (i + 1) & mask
	}
	m.slots[i] = s
	m.used++
}

// validity says which of n rows hold a value: all of them when defs is nil
// (a required column), else those at the column's maximum definition level.
type validity struct {
	n    int
	defs []int16
}

func (v validity) ok(i int) bool { return v.defs == nil || v.defs[i] == 1 }
