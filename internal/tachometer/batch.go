package tachometer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// batch holds the decoded columns of one record batch.
type batch struct {
	n        int
	ts       []int64
	tsArr    arrow.Array
	values   []float64
	valArr   arrow.Array
	name     textColumn
	upper    []float64
	upperArr arrow.Array
	upper32  bool
	idNames  []string
	ids      []textColumn

	// codes are the dictionary indices of the name and identity columns,
	// when every one of them is dictionary-encoded (Parquet text columns
	// are read that way); a row's identity is then one integer.
	codes  []dictCodes
	packed bool

	// Conversion buffers for timestamp and float32 columns, reused
	// across batches.
	tsBuf         []int64
	valBuf, upBuf []float64
}

// dictCodes are one dictionary column's indices; code 0 is null.
type dictCodes struct {
	arr     arrow.Array
	indices []int32
	nulls   bool
	radix   uint64 // dictionary size + 1
}

func (b *batch) reset(rec arrow.Record, l layout) error {
	col := func(name string) arrow.Array {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) == 0 {
			return nil
		}
		return rec.Column(idx[0])
	}
	b.n = int(rec.NumRows())
	b.tsArr = col(colTimestamp)
	b.valArr = col(colValue)
	nameArr := col(colName)
	if b.tsArr == nil || b.valArr == nil || nameArr == nil {
		return errors.New("record batch lacks a required column")
	}
	b.ts = int64Values(b.tsArr, &b.tsBuf)
	b.values = float64Values(b.valArr, &b.valBuf)
	b.name = newTextColumn(nameArr)
	b.upperArr, b.upper = nil, nil
	if l.upper {
		if b.upperArr = col(colBucketUpper); b.upperArr == nil {
			return fmt.Errorf("record batch lacks column %q", colBucketUpper)
		}
		b.upper32 = b.upperArr.DataType().ID() == arrow.FLOAT32
		b.upper = float64Values(b.upperArr, &b.upBuf)
	}
	b.idNames = l.identity
	b.ids = b.ids[:0]
	texts := []arrow.Array{nameArr}
	for _, name := range l.identity {
		a := col(name)
		if a == nil {
			return fmt.Errorf("record batch lacks column %q", name)
		}
		b.ids = append(b.ids, newTextColumn(a))
		texts = append(texts, a)
	}
	b.packCodes(texts)
	return nil
}

// packCodes enables the integer identity of rows when the name and identity
// columns are all dictionaries whose combined size fits 64 bits and no row
// carries a bucket bound (bounds are not dictionary-encoded).
func (b *batch) packCodes(texts []arrow.Array) {
	b.codes, b.packed = b.codes[:0], false
	if b.upperArr != nil && b.upperArr.NullN() != b.n {
		return
	}
	span := uint64(1)
	for _, a := range texts {
		d, ok := a.(*array.Dictionary)
		if !ok {
			return
		}
		idx, ok := d.Indices().(*array.Int32)
		if !ok {
			return
		}
		radix := uint64(d.Dictionary().Len()) + 1
		hi, lo := bits.Mul64(span, radix)
		if hi != 0 || lo > math.MaxInt64 {
			return
		}
		span = lo
		b.codes = append(b.codes, dictCodes{arr: a, indices: idx.Int32Values(), nulls: a.NullN() > 0, radix: radix})
	}
	b.packed = true
}

// packedKey is the row's identity as one integer; valid only when b.packed.
func (b *batch) packedKey(i int) uint64 {
	var k uint64
	for c := range b.codes {
		d := &b.codes[c]
		code := uint64(d.indices[i]) + 1
		if d.nulls && d.arr.IsNull(i) {
			code = 0
		}
		k = k*d.radix + code
	}
	return k
}

func (r *reader) readBatch(source int32, offset int64, b *batch) error {
	tsNulls := b.tsArr.NullN() > 0
	valNulls := b.valArr.NullN() > 0
	if b.packed {
		clear(r.packed)
	}
	w := r.opts.Window
	for i := 0; i < b.n; i++ {
		row := offset + int64(i)
		if tsNulls && b.tsArr.IsNull(i) {
			return fmt.Errorf("%s: row %d: null timestamp_ns", r.path, row)
		}
		var e *rowEntry
		if b.packed {
			k := b.packedKey(i)
			if e = r.packed[k]; e == nil {
				var err error
				if e, err = r.entry(b, i, row); err != nil {
					return err
				}
				r.packed[k] = e
			}
		} else {
			var err error
			if e, err = r.entry(b, i, row); err != nil {
				return err
			}
		}
		e.family.rows++
		r.audit.RowsScanned++
		t := b.ts[i]
		if w != nil && (t < w.StartNS || t > w.EndNS) {
			r.audit.OutOfWindow++
			continue
		}
		v := b.values[i]
		if (valNulls && b.valArr.IsNull(i)) || math.IsNaN(v) || math.IsInf(v, 0) {
			r.audit.NonFinite++
			continue
		}
		if err := r.observe(e.series, t, v, source, row); err != nil {
			return err
		}
	}
	return nil
}

// entry finds the family and series of row i by the text of its identity
// columns, resolving identities not seen before in this file.
func (r *reader) entry(b *batch, i int, row int64) (*rowEntry, error) {
	raw, ok := b.name(i)
	if !ok {
		return nil, fmt.Errorf("%s: row %d: missing metric name (null)", r.path, row)
	}
	key := appendField(r.key[:0], raw)
	hasUpper := b.upper != nil && b.upperArr.IsValid(i)
	if hasUpper {
		key = binary.LittleEndian.AppendUint64(append(key, 1), math.Float64bits(b.upper[i]))
	} else {
		key = append(key, 0)
	}
	for _, id := range b.ids {
		if v, ok := id(i); ok {
			key = appendField(append(key, 1), v)
		} else {
			key = append(key, 0)
		}
	}
	r.key = key
	if e := r.rows[string(key)]; e != nil {
		return e, nil
	}
	e, err := r.resolve(b, i, raw, hasUpper)
	if err != nil {
		return nil, fmt.Errorf("%s: row %d: %w", r.path, row, err)
	}
	r.rows[string(key)] = e
	return e, nil
}

// resolve parses and validates a row identity not seen before in this file
// and finds its family and series.
func (r *reader) resolve(b *batch, i int, raw string, hasUpper bool) (*rowEntry, error) {
	p := r.names[raw]
	if p == nil {
		var err error
		raw = strings.Clone(raw)
		if p, err = parseCaptured(raw); err != nil {
			return nil, err
		}
		r.names[raw] = p
	}
	id := rowIdentity{raw: raw, parsed: p, upper32: b.upper32}
	if hasUpper {
		id.upper, id.hasUpper = b.upper[i], true
	}
	for k, col := range b.ids {
		if v, ok := col(i); ok {
			id.columns = append(id.columns, Label{Key: b.idNames[k], Value: strings.Clone(v)})
		}
	}
	family, histogram, inline, err := id.shape()
	if err != nil {
		return nil, err
	}
	f := r.families[family]
	if f == nil {
		f = &familyState{name: family, endpoints: map[string]bool{}}
		r.families[family] = f
	}
	f.histogram = f.histogram || histogram
	f.scalar = f.scalar || !histogram
	if f.histogram && f.scalar {
		return nil, fmt.Errorf("metric family %q mixes scalar values and histogram buckets", family)
	}
	info, key := describeSeries(&id, family, histogram, inline, r.opts.Endpoints)
	f.endpoints[info.Endpoint] = true
	s := r.series[key]
	if s == nil {
		s = &seriesState{info: info, family: f, id: -1}
		r.series[key] = s
	}
	return &rowEntry{family: f, series: s}, nil
}
