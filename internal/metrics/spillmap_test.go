package metrics

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/tachometer"
)

// TestSpillMappedLoadMatchesRead loads every series of an interleaved,
// partly unsorted spill from the mapped file and again through ReadAt, at
// a block size smaller than a page (series share pages, which dropPages
// must leave readable) and at the default: both must give the same pairs
// and evidence, and the pairs that went in.
func TestSpillMappedLoadMatchesRead(t *testing.T) {
	for _, block := range []int{64, 0} {
		s, err := newSpillStore(block)
		if err != nil {
			t.Fatal(err)
		}
		defer s.close()
		const series = 9
		for i := range series {
			if err := s.Series(&tachometer.SeriesInfo{ID: i}); err != nil {
				t.Fatal(err)
			}
		}
		rng := rand.New(rand.NewPCG(1, uint64(block)))
		counts := make([]int, series)
		var batch []tachometer.Point
		for k := range 40_000 {
			i := rng.IntN(series)
			at := int64(k) * 1000
			if i == 4 && k%7 == 0 {
				at -= 50_000 // out of order: load sorts it back
			}
			batch = append(batch, tachometer.Point{Series: int32(i), TimeNS: at, Value: float64(rng.IntN(50)), Source: int32(k % 2), Row: int64(k)})
			counts[i]++
			if len(batch) == 512 {
				if err := s.Points(batch); err != nil {
					t.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		if err := s.Points(batch); err != nil {
			t.Fatal(err)
		}
		if err := s.endRead(); err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS == "linux" && s.m.data == nil {
			t.Fatal("the spill is not mapped")
		}
		type loaded struct {
			t             []int64
			v             []float64
			sources, rows []int64
		}
		load := func(i int) loaded {
			var sc loadScratch
			times, values, err := s.load(i, &sc)
			if err != nil {
				t.Fatal(err)
			}
			return loaded{slices.Clone(times), slices.Clone(values), slices.Clone(sc.sources), slices.Clone(sc.rows)}
		}
		var mapped []loaded
		for i := range series {
			mapped = append(mapped, load(i))
		}
		m := s.m
		s.m = spillMapping{}
		for i := range series {
			read := load(i)
			got := mapped[i]
			if len(got.t) != counts[i] || !slices.Equal(got.t, read.t) || !slices.Equal(got.v, read.v) ||
				!slices.Equal(got.sources, read.sources) || !slices.Equal(got.rows, read.rows) {
				t.Fatalf("block %d: series %d loads %d pairs mapped and %d read, want %d, or they differ", block, i, len(got.t), len(read.t), counts[i])
			}
			if !slices.IsSorted(got.t) {
				t.Fatalf("block %d: series %d is not sorted", block, i)
			}
		}
		s.m = m
	}
}

// TestSpillWriterKeepsOrder writes pieces of every size across many
// buffers: the file receives exactly the bytes, in order.
func TestSpillWriterKeepsOrder(t *testing.T) {
	var out bytes.Buffer
	sw := newSpillWriter(&out, 100)
	var want []byte
	rng := rand.New(rand.NewPCG(2, 3))
	for k := range 500 {
		p := make([]byte, rng.IntN(350))
		for j := range p {
			p[j] = byte(k + j)
		}
		if n, err := sw.Write(p); n != len(p) || err != nil {
			t.Fatalf("write %d: %d, %v", k, n, err)
		}
		want = append(want, p...)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal("a second Flush failed:", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("wrote %d bytes, want %d, or they differ", out.Len(), len(want))
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

// TestSpillWriterReportsError: a write that fails on the writing goroutine
// is returned by Flush (and by later Writes once it is known).
func TestSpillWriterReportsError(t *testing.T) {
	sw := newSpillWriter(&failingWriter{after: 2}, 16)
	for range 20 {
		sw.Write(make([]byte, 10))
	}
	if err := sw.Flush(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Flush = %v, want the write error", err)
	}
	if _, err := sw.Write([]byte{1}); err == nil {
		t.Fatal("Write after a failure succeeded")
	}
}
