package pyramid

import "testing"

// A short series (a capture's usual series: one chunk of fewer than
// exactRows rows) is built in the buffers a full chunk of an earlier series
// left, not in freshly allocated ones, and its encoded summary is the one
// fresh buffers give. sync.Pool may drop an item (it does at random under
// the race detector, and at collections), so one reuse in several tries is
// what is asked.
func TestShortSeriesReusesRecycledFullChunk(t *testing.T) {
	build := func(n int) *Pyramid {
		pts := captureSeriesPoints(n)
		b, err := NewBuilder(Options{Temporal: Sample, Points: int64(n), Evidence: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.AddPoints(pts); err != nil {
			t.Fatal(err)
		}
		return b.Finish()
	}
	want, err := build(3_000).AppendShard(nil)
	if err != nil {
		t.Fatal(err)
	}
	reused := false
	for range 20 {
		long := build(3 * maxChunkRows)
		full := map[*int64]bool{}
		for _, c := range long.exact {
			if cap(c.times) == maxChunkRows {
				full[&c.times[:1][0]] = true
			}
		}
		if len(full) == 0 {
			t.Fatal("the long series has no full chunk")
		}
		long.Recycle()
		short := build(3_000)
		got, err := short.AppendShard(nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatal("a short series built in recycled buffers encodes differently")
		}
		if full[&short.exact[0].times[:1][0]] {
			reused = true
			break
		}
	}
	if !reused {
		t.Fatal("a short series never took a recycled full chunk's buffers")
	}
}
