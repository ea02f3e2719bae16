package query

import (
	"bytes"
	"testing"
)

// A whole-run series answer is computed once and kept with the series'
// summary: asked again, over any range holding every row, it is the same
// bytes, and a range that does not hold them all is computed afresh.
func TestStatsWholeSeriesKept(t *testing.T) {
	e, payloads := metricEngine(t)
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	q := []byte(`{"op":"stats","args":{"ids":[0,1]}}`)
	first := e.Handle(q)
	kept := 0
	for i := range e.c.Metrics {
		if p, _ := e.pyramidOf(i); p != nil && p.WholeMemo() != nil {
			kept++
		}
	}
	if kept == 0 {
		t.Fatalf("no series kept its whole-run answer: %s", first)
	}
	if again := e.Handle(q); !bytes.Equal(first, again) {
		t.Errorf("kept answer differs:\n%s\n%s", again, first)
	}
	for i := range e.c.Metrics {
		if p, _ := e.pyramidOf(i); p != nil {
			p.SetWholeMemo(nil)
		}
	}
	if fresh := e.Handle(q); !bytes.Equal(first, fresh) {
		t.Errorf("computed afresh:\n%s\nkept:\n%s", fresh, first)
	}
}

// A window without a sample of a setting has no mean, though a value set
// before it is held across it: unknown, never that value or zero.
func TestStatsNoSampleNoMean(t *testing.T) {
	e, payloads := metricEngine(t)
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	st, msg := askStats(t, e, Args{From: ptr(1.0), To: ptr(5.0), IDs: []int{1}})
	if msg != "" {
		t.Fatal(msg)
	}
	if s := st.Series[0]; s.Samples != 0 || s.Mean != nil || s.MeanSeconds != nil || s.Min != nil || s.P50 != nil {
		t.Errorf("a window without a sample: %+v", s)
	}
}

// copyBits copies exactly the bits of [lo, hi), across word edges.
func TestCopyBits(t *testing.T) {
	src := newBitset(300)
	for i := range 300 {
		if i%3 != 0 {
			src.set(i)
		}
	}
	for _, r := range [][2]int{{0, 0}, {0, 300}, {5, 60}, {60, 70}, {63, 64}, {64, 128}, {100, 299}} {
		dst := newBitset(300)
		copyBits(dst, src, r[0], r[1])
		for i := range 300 {
			if want := i >= r[0] && i < r[1] && i%3 != 0; dst.has(int32(i)) != want {
				t.Fatalf("range %v: bit %d is %v", r, i, !want)
			}
		}
	}
}
