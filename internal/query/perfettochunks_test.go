package query

import (
	"reflect"
	"testing"
)

// The feed hands out each chunk in the order the export first reads it,
// a recent one again as it is, and a chunk needed again much later
// through the engine's cache: all decode the same records.
func TestChunkFeed(t *testing.T) {
	e, err := FromDataset(serverFixture())
	if err != nil {
		t.Fatal(err)
	}
	f := e.feedChunks()
	defer f.stop()
	if len(f.order) == 0 {
		t.Fatal("the fixture's lifecycles are in no chunk")
	}
	k := f.order[0]
	fed, err := f.chunk(k)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := f.chunk(k)
	if again != fed {
		t.Error("a recent chunk was decoded again")
	}
	f.recent, f.recentID = nil, nil // as if many later chunks had been read since
	cached, err := f.chunk(k)
	if err != nil {
		t.Fatal(err)
	}
	if cached == fed || cached.Len() != fed.Len() {
		t.Fatalf("a chunk read again came from the feed (%v) or differs (%d, %d records)", cached == fed, cached.Len(), fed.Len())
	}
	for slot := range fed.Len() {
		a, errA := fed.Request(slot)
		b, errB := cached.Request(slot)
		if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("slot %d differs between the feed and the cache (%v, %v)", slot, errA, errB)
		}
	}
}
