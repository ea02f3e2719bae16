package pyramid

import (
	"reflect"
	"testing"
)

func TestShardFileRoundTrip(t *testing.T) {
	b, err := NewBuilder(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		if err := b.Add(int64(i)*1_000_000, float64(i%97), i%500 == 7); err != nil {
			t.Fatal(err)
		}
	}
	want := b.Finish()
	raw, err := want.EncodeShard()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeShard(raw)
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err1 := want.Stats(0, 5_000_000_000)
	gs, _, err2 := got.Stats(0, 5_000_000_000)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(ws, gs) {
		t.Fatalf("stats differ after a shard round trip: %+v / %+v (%v %v)", ws, gs, err1, err2)
	}
	if _, err := DecodeShard(raw[:len(raw)/2]); err == nil {
		t.Fatal("a truncated summary shard decoded")
	}
}

// TestPointsHintChangesNothing builds the same series with and without the
// expected point count (exact, too small, too large) and over every temporal:
// the encoded summaries must be byte-identical.
func TestPointsHintChangesNothing(t *testing.T) {
	const n = 20_000
	in := make([]input, 0, n)
	for i := range n {
		ts := int64(i/3) * 1_000_000 // groups of three points per timestamp
		in = append(in, input{t: ts, v: float64(i % 7 / 3), null: i%4999 == 3})
	}
	build := func(temporal Temporal, points int64) []byte {
		b, err := NewBuilder(Options{Temporal: temporal, Points: points, ChunkRows: 4096})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range in {
			if err := b.Add(p.t, p.v, p.null); err != nil {
				t.Fatal(err)
			}
		}
		raw, err := b.Finish().EncodeShard()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	for _, temporal := range []Temporal{Sample, Event, Setting} {
		want := build(temporal, 0)
		for _, points := range []int64{n, 1, n / 2, 10 * n} {
			if got := build(temporal, points); !reflect.DeepEqual(got, want) {
				t.Errorf("temporal %d, Points %d: the summary differs", temporal, points)
			}
		}
	}
	if _, err := NewBuilder(Options{Points: -1}); err == nil {
		t.Error("negative Points accepted")
	}
}
