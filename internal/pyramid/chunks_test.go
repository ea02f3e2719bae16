package pyramid

import (
	"errors"
	"testing"
)

// TestViewsLoadFewChunks answers views of a 2M-point series from a pyramid
// opened from its index, loading only what Plan and IncompleteError name, and
// checks that a view loads a small part of the series however wide it is.
func TestViewsLoadFewChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 2M-point series")
	}
	in := benchSeries(2_000_000)
	full := build(t, in, Options{})
	lay, err := full.Tables()
	if err != nil {
		t.Fatal(err)
	}
	first, last := in[0].t, in[len(in)-1].t
	const px = 2000
	for _, width := range []int64{last - first, 3600e9, 60e9, 5e9, 1e9, 100e6} {
		from := first + (last-first-width)/3
		to := from + width
		p, err := Open(&lay.Header, &lay.Index)
		if err != nil {
			t.Fatal(err)
		}
		var loadedRows, loadedBuckets int64
		load := func(ids []int) {
			for _, id := range ids {
				if err := p.Load(id, &lay.Chunks[id]); err != nil {
					t.Fatal(err)
				}
				if id < len(p.exact) {
					loadedRows += int64(p.exact[id].rows)
				} else {
					loadedBuckets += int64(p.levelChunk(id).rows)
				}
			}
		}
		load(p.Plan(from, to, px))
		rounds := 1
		var v *View
		for {
			v, err = p.Query(from, to, px)
			var inc *IncompleteError
			if !errors.As(err, &inc) {
				break
			}
			load(inc.Chunks)
			rounds++
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("width %.3gs: exact=%v shift %d, %d buckets out; read %d buckets + %d rows; loaded %d buckets + %d rows in %d round(s)",
			float64(width)/1e9, v.Exact, v.Shift, len(v.Buckets), v.Read.Buckets, v.Read.Rows, loadedBuckets, loadedRows, rounds)
		// Chunks hold at most maxChunkRows rows: allow the read plus a few
		// whole chunks at the edges and around small buckets.
		if loadedRows > v.Read.Rows+4*maxChunkRows || rounds > 2 {
			t.Errorf("width %d: loaded %d rows for %d read, %d rounds", width, loadedRows, v.Read.Rows, rounds)
		}
	}
}
