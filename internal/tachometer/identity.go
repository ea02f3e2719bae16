package tachometer

import "math/bits"

// identityCoder gives every distinct row identity of one file (metric name,
// bucket bound, identity columns) a dense id, so that the reader resolves
// each identity once and then finds it by index. It runs on the decoding
// goroutine and lives as long as the file's source.
//
// Each column first turns its values into codes (columnCoder: 0 for null,
// then 1, 2, … in order of first appearance in the file); an identity is
// the tuple of its columns' codes, and ids too are numbered in order of
// first appearance.
//
// While the codes fit, a row's tuple is packed into one integer, each
// column taking as many bits as its largest code needs: finding the id is
// then one probe of a table keyed by that integer. A column's width grows
// with its codes, which changes every key, so the table is rebuilt then (a
// few times per file). If the widths ever exceed 64 bits the coder hashes
// the tuples themselves, for the rest of the file.
type identityCoder struct {
	cols   []*columnCoder // name, identity columns in schema order, then the bound if any
	upper  int            // index of the bound column in cols, or -1
	width  int            // len(cols)
	tuples []int32        // id*width+c: code of column c in identity id

	packed bool
	widths []int // bits of each column in a packed key
	keys   []uint64
	table  []keySlot // open-addressed by packed key; id 0 marks an empty slot

	slots []int32 // open-addressed by tuple hash, once not packed: id+1, 0 empty
}

type keySlot struct {
	key uint64
	id  int32 // id+1
}

func newIdentityCoder(l layout, upper32 bool) *identityCoder {
	c := &identityCoder{upper: -1, packed: true}
	c.cols = append(c.cols, newColumnCoder(false))
	for range l.identity {
		c.cols = append(c.cols, newColumnCoder(false))
	}
	if l.upper {
		c.upper = len(c.cols)
		c.cols = append(c.cols, newColumnCoder(true))
		c.cols[c.upper].upper32 = upper32
	}
	c.width = len(c.cols)
	c.widths = make([]int, c.width)
	return c
}

// reserve makes room for the row codes of an n-row batch.
func (c *identityCoder) reserve(n int) {
	for _, col := range c.cols {
		col.rows = grown(col.rows, n)
	}
	c.keys = grown(c.keys, n)
}

// identify assigns the ids of rows [0, n) from the columns' row codes.
func (c *identityCoder) identify(n int, ids []int32) {
	if c.packed {
		c.fitWidths()
	}
	if !c.packed {
		for i := range n {
			ids[i] = c.findTuple(i)
		}
		return
	}
	keys := c.keys[:n]
	// A column whose rows all hold one code adds it to every key at once.
	var base uint64
	shift := 0
	for k, col := range c.cols {
		if col.one >= 0 {
			base |= uint64(col.one) << shift
		}
		shift += c.widths[k]
	}
	for i := range keys {
		keys[i] = base
	}
	shift = 0
	for k, col := range c.cols {
		if col.one >= 0 {
			shift += c.widths[k]
			continue
		}
		// Column by column, so each pass reads one array in order.
		for i, code := range col.rows[:n] {
			keys[i] |= uint64(code) << shift
		}
		shift += c.widths[k]
	}
	for i, key := range keys {
		if i > 0 && key == keys[i-1] {
			ids[i] = ids[i-1]
			continue
		}
		ids[i] = c.findKey(key, i)
	}
}

// fitWidths widens the packed key for the codes assigned so far,
// rebuilding the table when a width changes, or gives packing up.
func (c *identityCoder) fitWidths() {
	changed, total := false, 0
	for k, col := range c.cols {
		w := bits.Len(uint(col.codes()))
		if w > c.widths[k] {
			c.widths[k], changed = w, true
		}
		total += c.widths[k]
	}
	if !changed {
		return
	}
	ids := len(c.tuples) / c.width
	if total > 64 {
		c.packed, c.table, c.keys = false, nil, nil
		c.slots = make([]int32, tableSize(ids))
		for id := range ids {
			c.slots[c.slotOf(c.tuples[id*c.width:(id+1)*c.width])] = int32(id) + 1
		}
		return
	}
	c.table = make([]keySlot, tableSize(ids))
	for id := range ids {
		key := c.pack(c.tuples[id*c.width : (id+1)*c.width])
		c.table[c.keySlot(key)] = keySlot{key, int32(id) + 1}
	}
}

// tableSize is a power of two at least twice n and at least 1024.
func tableSize(n int) int {
	return max(1024, 1<<bits.Len(uint(2*n)))
}

func (c *identityCoder) pack(tuple []int32) uint64 {
	var key uint64
	shift := 0
	for k, code := range tuple {
		key |= uint64(code) << shift
		shift += c.widths[k]
	}
	return key
}

func mix(h uint64) uint64 {
	h *= 0x9E3779B97F4A7C15
	return h ^ h>>29
}

// keySlot returns the slot of key, or the empty slot where it belongs.
func (c *identityCoder) keySlot(key uint64) int {
	mask := uint64(len(c.table) - 1)
	s := mix(key) & mask
	for c.table[s].id != 0 && c.table[s].key != key {
		s = (s + 1) & mask
	}
	return int(s)
}

// findKey returns the id of packed key, adding row i's tuple when new.
func (c *identityCoder) findKey(key uint64, i int) int32 {
	s := c.keySlot(key)
	if id := c.table[s].id; id != 0 {
		return id - 1
	}
	id := c.add(i)
	c.table[s] = keySlot{key, id + 1}
	if int(id+1)*2 > len(c.table) {
		c.table = make([]keySlot, 2*len(c.table))
		for id := range len(c.tuples) / c.width {
			key := c.pack(c.tuples[id*c.width : (id+1)*c.width])
			c.table[c.keySlot(key)] = keySlot{key, int32(id) + 1}
		}
	}
	return id
}

// add records row i's tuple as a new identity.
func (c *identityCoder) add(i int) int32 {
	id := int32(len(c.tuples) / c.width)
	for _, col := range c.cols {
		c.tuples = append(c.tuples, col.rows[i])
	}
	return id
}

// slotOf returns the slot of tuple in the tuple-hashed table, or the empty
// slot where it belongs.
func (c *identityCoder) slotOf(tuple []int32) int {
	h := uint64(0)
	for _, code := range tuple {
		h = mix(h ^ uint64(uint32(code)))
	}
	mask := uint64(len(c.slots) - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		id := int(c.slots[s]) - 1
		if id < 0 || equalTuple(c.tuples[id*c.width:(id+1)*c.width], tuple) {
			return int(s)
		}
	}
}

func equalTuple(a, b []int32) bool {
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// findTuple returns the id of row i's tuple, adding it when new.
func (c *identityCoder) findTuple(i int) int32 {
	id := c.add(i) // tentatively: looked up as the last tuple, dropped if known
	tuple := c.tuples[int(id)*c.width:]
	s := c.slotOf(tuple)
	if known := c.slots[s]; known != 0 && known-1 != id {
		c.tuples = c.tuples[:int(id)*c.width]
		return known - 1
	}
	c.slots[s] = id + 1
	if int(id+1)*2 > len(c.slots) {
		c.slots = make([]int32, 2*len(c.slots))
		for id := range len(c.tuples) / c.width {
			c.slots[c.slotOf(c.tuples[id*c.width:(id+1)*c.width])] = int32(id) + 1
		}
	}
	return id
}

// snapshot records in b what the reader needs to resolve the batch's ids.
// The coder only appends, so the slices stay valid while it decodes on.
func (c *identityCoder) snapshot(b *batch) {
	b.tuples, b.width, b.upperAt = c.tuples, c.width, c.upper
	b.texts = b.texts[:0]
	for _, col := range c.cols {
		b.texts = append(b.texts, col.texts)
	}
	if c.upper >= 0 {
		b.bounds, b.upper32 = c.cols[c.upper].bounds, c.cols[c.upper].upper32
	}
}
