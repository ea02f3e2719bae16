package metrics

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"testing"

	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/tachometer"
)

// Every summarized capture row names the capture file (a registered source
// id among the series' own) and a row in it: the evidence survives the
// spill, the sort and the summary.
func TestCaptureRowsKeepTheirEvidence(t *testing.T) {
	leaf := awkwardCapture(t, false)
	_, out, err := readAwkward(t, leaf, func() (pointStore, error) { return newSpillStore(64) })
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range out {
		gz, err := b.meta.Summary.Payload.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		p, err := pyramid.DecodeShard(raw)
		if err != nil {
			t.Fatal(err)
		}
		v, err := p.Query(-1<<62, 1<<62, 1<<20)
		if err != nil || !v.Exact || len(v.Sources) != len(v.Times) {
			t.Fatalf("series %d: view %v", i, err)
		}
		own := map[int64]bool{}
		for _, s := range b.meta.SourceIDs {
			own[int64(s)] = true
		}
		for k := range v.Times {
			if !own[v.Sources[k]] || v.Lines[k] < 0 {
				t.Fatalf("series %d row %d: evidence %d:%d, series sources %v", i, k, v.Sources[k], v.Lines[k], b.meta.SourceIDs)
			}
		}
	}
}

// Pairs whose rows keep their series' stride in one file spill without
// evidence bytes; every change of file or stride, and rows going back,
// still decode to exactly the evidence given.
func TestSpillEvidenceStrides(t *testing.T) {
	s, err := newSpillStore(math.MaxUint16)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	const series, steady = 3, 3000
	for i := range series {
		if err := s.Series(&tachometer.SeriesInfo{ID: i}); err != nil {
			t.Fatal(err)
		}
	}
	type ev struct{ src, row int64 }
	want := make([][]ev, series)
	var ps []tachometer.Point
	add := func(i int, src int32, row int64) {
		n := int64(len(want[i]))
		ps = append(ps, tachometer.Point{Series: int32(i), Source: src, Row: row, TimeNS: captureT0 + n*captureSec, Value: 7})
		want[i] = append(want[i], ev{int64(src), row})
	}
	// final.parquet: three series interleaved under one name, stride 3.
	for r := range int64(steady) {
		for i := range series {
			add(i, 0, 3*r+int64(i))
		}
	}
	if err := s.Points(ps); err != nil {
		t.Fatal(err)
	}
	for i := range series {
		// Two bytes a pair: the time step's change and the XOR header.
		if got := len(s.series[i].pending) - spillHeader; got > 2*steady+32 {
			t.Errorf("series %d: %d pairs spill to %d bytes", i, steady, got)
		}
	}
	// A tail file, another stride, rows going back, the same row twice.
	ps = ps[:0]
	for _, r := range []int64{5, 6, 7, 9, 11, 13, 2, 2, 40, 1 << 40} {
		for i := range series {
			add(i, 1, r)
		}
	}
	add(0, 0, 0)
	add(0, 1, 0)
	if err := s.Points(ps); err != nil {
		t.Fatal(err)
	}
	if err := s.endRead(); err != nil {
		t.Fatal(err)
	}
	var sc loadScratch
	for i := range series {
		if _, _, err := s.load(i, &sc); err != nil {
			t.Fatal(err)
		}
		if len(sc.sources) != len(want[i]) {
			t.Fatalf("series %d: %d pairs loaded, %d spilled", i, len(sc.sources), len(want[i]))
		}
		for k, w := range want[i] {
			if sc.sources[k] != w.src || sc.rows[k] != w.row {
				t.Fatalf("series %d pair %d: evidence %d:%d, want %d:%d", i, k, sc.sources[k], sc.rows[k], w.src, w.row)
			}
		}
	}
}
