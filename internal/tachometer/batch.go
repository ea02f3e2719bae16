package tachometer

import (
	"fmt"
	"math"
)

// batch holds the decoded rows of one record batch, in memory the decoding
// goroutine reuses once the reader hands the batch back.
type batch struct {
	n      int
	ts     []int64
	nullTS int       // first row whose timestamp is null, or -1
	values []float64 // a null value is NaN: both are dropped as non-finite
	ids    []int32   // each row's identity, dense per file (see identityCoder)

	// What resolving an id needs, as of this batch: the identity tuples and
	// each column's texts (identityCoder.snapshot).
	tuples  []int32
	width   int
	texts   [][]string
	upperAt int // the bound column in a tuple, or -1
	bounds  []float64
	upper32 bool
}

// grow sizes the row buffers for n rows.
func (b *batch) grow(n int) {
	if cap(b.ts) < n {
		b.ts, b.values, b.ids = make([]int64, n), make([]float64, n), make([]int32, n)
	}
	b.ts, b.values, b.ids = b.ts[:n], b.values[:n], b.ids[:n]
}

func (r *reader) readBatch(source int32, offset int64, b *batch) error {
	w := r.opts.Window
	for i := 0; i < b.n; i++ {
		row := offset + int64(i)
		if i == b.nullTS {
			return fmt.Errorf("%s: row %d: null timestamp_ns", r.path, row)
		}
		id := int(b.ids[i])
		var e *rowEntry
		if id < len(r.entries) {
			e = r.entries[id]
		}
		if e == nil {
			var err error
			if e, err = r.resolve(b, id); err != nil {
				return fmt.Errorf("%s: row %d: %w", r.path, row, err)
			}
			for len(r.entries) <= id {
				r.entries = append(r.entries, nil)
			}
			r.entries[id] = e
		}
		e.family.rows++
		r.audit.RowsScanned++
		t := b.ts[i]
		r.seenMin, r.seenMax = min(r.seenMin, t), max(r.seenMax, t)
		if w != nil && (t < w.StartNS || t > w.EndNS) {
			r.audit.OutOfWindow++
			continue
		}
		v := b.values[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			r.audit.NonFinite++
			continue
		}
		if err := r.observe(e.series, t, v, source, row); err != nil {
			return err
		}
	}
	return nil
}

// resolve parses and validates a row identity not seen before in this file
// and finds its family and series.
func (r *reader) resolve(b *batch, id int) (*rowEntry, error) {
	tuple := b.tuples[id*b.width : (id+1)*b.width]
	if tuple[0] == 0 {
		return nil, fmt.Errorf("missing metric name (null)")
	}
	raw := b.texts[0][tuple[0]-1]
	p := r.names[raw]
	if p == nil {
		var err error
		if p, err = parseCaptured(raw); err != nil {
			return nil, err
		}
		r.names[raw] = p
	}
	id0 := rowIdentity{raw: raw, parsed: p, upper32: b.upper32}
	if b.upperAt >= 0 && tuple[b.upperAt] != 0 {
		id0.upper, id0.hasUpper = b.bounds[tuple[b.upperAt]-1], true
	}
	for k, name := range r.identity {
		if code := tuple[1+k]; code != 0 {
			id0.columns = append(id0.columns, Label{Key: name, Value: b.texts[1+k][code-1]})
		}
	}
	family, histogram, inline, err := id0.shape()
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
	info, key := describeSeries(&id0, family, histogram, inline, r.opts.Endpoints)
	f.endpoints[info.Endpoint] = true
	s := r.series[key]
	if s == nil {
		s = &seriesState{info: info, family: f, id: -1}
		r.series[key] = s
	}
	return &rowEntry{family: f, series: s}, nil
}
