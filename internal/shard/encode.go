package shard

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"slices"
	"sync"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Encode writes s in the raw shard format: magic, version, kind, tables and a
// CRC-32C trailer. The output depends only on s, so identical shards give
// identical bytes.
func Encode(s *Shard) ([]byte, error) { return AppendEncode(nil, s) }

// AppendEncode appends what Encode writes to dst, so a caller that only
// compresses the shard can reuse one buffer for every shard.
func AppendEncode(dst []byte, s *Shard) ([]byte, error) {
	if err := validate(s); err != nil {
		return nil, fmt.Errorf("encode shard: %w", err)
	}
	// Plan every column first so the output is allocated once at its exact
	// size: growing a multi-megabyte buffer by appending cost more than
	// encoding the values.
	plans := make([][]columnPlan, len(s.Tables))
	// The integer columns are written into ints while they are planned
	// (appendChosenInts) and copied into place after.
	ints := intArenas.Get().(*[]byte)
	defer putIntArena(ints)
	*ints = (*ints)[:0]
	size := headerFixedBytes + stringLen(s.Kind) + uvarintLen(uint64(len(s.Tables))) + trailerBytes
	var decoded int64
	for ti := range s.Tables {
		t := &s.Tables[ti]
		size += stringLen(t.Name) + uvarintLen(uint64(t.Rows)) + uvarintLen(uint64(len(t.Columns)))
		plans[ti] = make([]columnPlan, len(t.Columns))
		for ci := range t.Columns {
			c := &t.Columns[ci]
			p := &plans[ti][ci]
			p.plan(c, t.Rows, ints)
			decoded += p.decoded
			if decoded > maxDecodedTotal {
				return nil, fmt.Errorf("encode shard: table %q column %q: decoded shard would exceed %d bytes", t.Name, c.Name, int64(maxDecodedTotal))
			}
			size += stringLen(c.Name) + 2 + uvarintLen(uint64(p.size)) + p.size
		}
	}
	if size > maxRawBytes {
		return nil, fmt.Errorf("encode shard: %d bytes exceeds the limit of %d", size, maxRawBytes)
	}
	// The budget grows with the raw size, known only now: readers check the
	// same DecodeBudget(len(raw)), so what is written here always decodes.
	if budget := DecodeBudget(size); decoded > budget {
		return nil, fmt.Errorf("encode shard: decoded shard would take %d bytes, over the %d a shard of %d bytes may take", decoded, budget, size)
	}

	start := len(dst)
	buf := slices.Grow(dst, size)
	buf = append(buf, magic...)
	buf = append(buf, FormatVersion)
	buf = appendString(buf, s.Kind)
	buf = binary.AppendUvarint(buf, uint64(len(s.Tables)))
	for ti := range s.Tables {
		t := &s.Tables[ti]
		buf = appendString(buf, t.Name)
		buf = binary.AppendUvarint(buf, uint64(t.Rows))
		buf = binary.AppendUvarint(buf, uint64(len(t.Columns)))
		for ci := range t.Columns {
			buf = plans[ti][ci].append(buf, &t.Columns[ci], *ints)
		}
	}
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf[start:], castagnoli))
	if len(buf)-start != size {
		panic(fmt.Sprintf("shard: invariant violation: planned %d bytes, wrote %d", size, len(buf)-start))
	}
	return buf, nil
}

// columnPlan is what Encode decides about a column before writing it.
type columnPlan struct {
	flag    byte     // validity flag
	enc     Encoding // value encoding
	size    int      // payload bytes: validity flag, bitmap, values
	decoded int64    // memory Decode will allocate for the column
	intAt   int      // Int64: where the encoded values start in the arena
	intSize int      // Int64: bytes of the encoded values
	floats  []float64
	dict    []string // String: distinct values, first seen first
	indexes []uint64 // String: dictionary index of each valid row
	bools   []bool
}

// intArenas pools the buffers the integer columns are encoded into before
// they are copied into place; one larger than maxPooledArena (a large
// core's) is left to the collector rather than kept.
var intArenas = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledArena = 16 << 20

func putIntArena(b *[]byte) {
	if cap(*b) <= maxPooledArena {
		intArenas.Put(b)
	}
}

func (p *columnPlan) plan(c *Column, rows int, ints *[]byte) {
	present := c.valueCount(rows)
	p.flag = validBitmap
	switch {
	case present == rows:
		p.flag = validAll
	case present == 0:
		p.flag = validNone
	}
	p.size = 1
	if p.flag == validBitmap {
		p.size += (rows + 7) / 8
	}
	p.decoded = decodedCost(c.Type, rows, p.flag != validAll)
	valid := c.Valid
	if p.flag == validAll {
		valid = nil // every row holds a value: nothing to compact
	}
	switch c.Type {
	case Int64:
		p.intAt = len(*ints)
		*ints, p.enc = appendChosenInts(*ints, compact(c.Ints, valid))
		p.intSize = len(*ints) - p.intAt
		p.size += p.intSize
	case Float64:
		p.floats = compact(c.Floats, valid)
		p.enc = chooseFloatEncoding(p.floats)
		if p.enc == EncConstant {
			p.size += 8
		} else {
			p.size += 8 * len(p.floats)
		}
	case String:
		p.enc = EncDictionary
		vals := compact(c.Strings, valid)
		n, dictBytes := p.planDictionary(vals)
		if allUUIDs(p.dict) {
			p.enc = EncUUIDDictionary
			n -= int(dictBytes) + len(p.dict) - uuidBytes*len(p.dict) // 16 bytes, no length, per entry
			if len(p.dict) == len(vals) {
				p.enc = EncUUIDList
				n = uuidBytes * len(vals)
			}
		}
		p.size += n
		p.decoded += dictBytes
	case Bool:
		p.enc = EncBitmap
		p.bools = compact(c.Bools, valid)
		p.size += (len(p.bools) + 7) / 8
	}
}

func (p *columnPlan) append(buf []byte, c *Column, ints []byte) []byte {
	buf = appendString(buf, c.Name)
	buf = append(buf, byte(c.Type), byte(p.enc))
	buf = binary.AppendUvarint(buf, uint64(p.size))
	buf = append(buf, p.flag)
	if p.flag == validBitmap {
		buf = appendBitmap(buf, c.Valid)
	}
	switch c.Type {
	case Int64:
		return append(buf, ints[p.intAt:p.intAt+p.intSize]...)
	case Float64:
		return appendFloats(buf, p.enc, p.floats)
	case String:
		if p.enc == EncUUIDList {
			for _, d := range p.dict { // every value is distinct: the dictionary is the rows
				buf = appendUUID(buf, d)
			}
			return buf
		}
		buf = binary.AppendUvarint(buf, uint64(len(p.dict)))
		for _, d := range p.dict {
			if p.enc == EncUUIDDictionary {
				buf = appendUUID(buf, d)
			} else {
				buf = appendString(buf, d)
			}
		}
		for _, k := range p.indexes {
			buf = binary.AppendUvarint(buf, k)
		}
		return buf
	case Bool:
		return appendBitmap(buf, p.bools)
	}
	return buf
}

// planDictionary collects the distinct strings in first-seen order and the
// index of each value. It returns the encoded size and the dictionary's
// string bytes.
func (p *columnPlan) planDictionary(vals []string) (size int, dictBytes int64) {
	index := make(map[string]uint64)
	p.indexes = make([]uint64, len(vals))
	for i, v := range vals {
		k, ok := index[v]
		if !ok {
			k = uint64(len(p.dict))
			index[v] = k
			p.dict = append(p.dict, v)
			size += stringLen(v)
			dictBytes += int64(len(v))
		}
		p.indexes[i] = k
		size += uvarintLen(k)
	}
	return size + uvarintLen(uint64(len(p.dict))), dictBytes
}

// compact returns the values of the valid rows.
func compact[T any](vals []T, valid []bool) []T {
	if valid == nil {
		return vals
	}
	out := make([]T, 0, len(vals))
	for i, ok := range valid {
		if ok {
			out = append(out, vals[i])
		}
	}
	return out
}

// appendChosenInts appends vals in the smallest varint form and returns
// that form. On a tie it prefers deltas when the column is mostly
// non-decreasing: the small repeated steps of sorted data (timestamps, ids)
// compress far better under gzip than the values themselves, while the
// deltas of unordered data compress worse.
//
// The deltas are written as they are sized, and the plain form is only
// sized, and only until it is larger than the deltas: most columns are
// deltas (a capture's timestamps and line numbers), and sizing both forms
// whole and then writing the one chosen took most of a metric summary's
// encoding.
func appendChosenInts(dst []byte, vals []int64) ([]byte, Encoding) {
	if len(vals) == 0 {
		return dst, EncVarint
	}
	// A constant column (one source, say) needs no sizes; any other column
	// usually differs within its first rows.
	constant := true
	for _, v := range vals[1:] {
		if v != vals[0] {
			constant = false
			break
		}
	}
	if constant {
		return binary.AppendUvarint(dst, zigzag(vals[0])), EncConstant
	}
	k := len(dst)
	dst = slices.Grow(dst, maxVarintBytes*len(vals))
	out := dst[k : k+maxVarintBytes*len(vals)]
	delta := putUvarint(out, zigzag(vals[0])) // the first delta is the first value itself
	falls := 0
	for i := 1; i < len(vals); i++ {
		v, prev := vals[i], vals[i-1]
		delta += putUvarint(out[delta:], zigzag(wrappingSub(v, prev)))
		if v < prev {
			falls++
		}
	}
	// A sorted column of values from zero up (times, ids) takes at least
	// its first value's size a value in the plain form: more than the
	// deltas is decided without sizing it.
	if falls == 0 && vals[0] >= 0 && len(vals)*uvarintLen(zigzag(vals[0])) > delta {
		return dst[:k+delta], EncDeltaVarint
	}
	plain := 0
	for _, v := range vals {
		if plain += uvarintLen(zigzag(v)); plain > delta {
			return dst[:k+delta], EncDeltaVarint
		}
	}
	if plain == delta && falls*8 <= len(vals)-1 {
		return dst[:k+delta], EncDeltaVarint
	}
	o := 0
	for _, v := range vals {
		o += putUvarint(out[o:], zigzag(v))
	}
	return dst[:k+o], EncVarint
}

// maxVarintBytes is the most bytes a varint takes.
const maxVarintBytes = binary.MaxVarintLen64

// putUvarint writes x as binary.PutUvarint does, into b, which has room.
func putUvarint(b []byte, x uint64) int {
	i := 0
	for x >= 0x80 {
		b[i] = byte(x) | 0x80
		x >>= 7
		i++
	}
	b[i] = byte(x)
	return i + 1
}

func chooseFloatEncoding(vals []float64) Encoding {
	if len(vals) == 0 {
		return EncFloat64LE
	}
	first := math.Float64bits(vals[0]) // bits, so that 0 and -0 stay distinct
	for _, v := range vals[1:] {
		if math.Float64bits(v) != first {
			return EncFloat64LE
		}
	}
	return EncConstant
}

func appendFloats(p []byte, enc Encoding, vals []float64) []byte {
	if enc == EncConstant {
		return binary.LittleEndian.AppendUint64(p, math.Float64bits(vals[0]))
	}
	k := len(p)
	p = slices.Grow(p, 8*len(vals))[:k+8*len(vals)]
	out := p[k:]
	for i, v := range vals {
		binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
	}
	return p
}

// appendBitmap packs bits least significant first; padding bits are zero.
func appendBitmap(p []byte, bits []bool) []byte {
	var cur byte
	for i, b := range bits {
		if b {
			cur |= 1 << (i & 7)
		}
		if i&7 == 7 {
			p = append(p, cur)
			cur = 0
		}
	}
	if len(bits)&7 != 0 {
		p = append(p, cur)
	}
	return p
}

func stringLen(s string) int { return uvarintLen(uint64(len(s))) + len(s) }

func appendString(p []byte, s string) []byte {
	p = binary.AppendUvarint(p, uint64(len(s)))
	return append(p, s...)
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// wrappingSub and wrappingAdd work modulo 2^64 on purpose: the delta between
// math.MinInt64 and math.MaxInt64 overflows int64, but wrapping the
// difference on encode and wrapping the sum on decode restores every value.
func wrappingSub(a, b int64) int64 { return int64(uint64(a) - uint64(b)) }

func wrappingAdd(a, b int64) int64 { return int64(uint64(a) + uint64(b)) }

// uvarintLen is the size of x written by binary.AppendUvarint.
func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }
