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
