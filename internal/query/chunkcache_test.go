package query

import (
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// The decoded evidence chunks are held within a byte budget, least
// recently used first out, rather than eight at most: a run's requests
// visited again after a few dozen others still find their chunk decoded.
func TestChunkCacheKeepsChunksWithinItsByteBudget(t *testing.T) {
	w := catalog.NewEvidenceWriter()
	w.AddRequest(&model.RequestEvidence{ServerIDs: []string{"r"}})
	raw := w.Bytes()
	reads := map[int]int{}
	read := func(k int) ([]byte, error) {
		reads[k]++
		return raw, nil
	}
	held := 2 * len(raw)
	cc := chunkCache{max: 40 * held}
	for k := range 40 {
		if _, err := cc.chunk(k, read); err != nil {
			t.Fatal(err)
		}
	}
	for k := range 40 { // all forty fit: none read twice
		if _, err := cc.chunk(k, read); err != nil {
			t.Fatal(err)
		}
		if reads[k] != 1 {
			t.Fatalf("chunk %d read %d times with forty in the budget", k, reads[k])
		}
	}
	if cc.bytes != 40*held || len(cc.byID) != 40 {
		t.Fatalf("holds %d chunks in %d bytes, want 40 in %d", len(cc.byID), cc.bytes, 40*held)
	}
	// Chunk 0 used last, then one more: the least recently used (1) goes.
	if _, err := cc.chunk(0, read); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.chunk(40, read); err != nil {
		t.Fatal(err)
	}
	if _, ok := cc.byID[1]; ok || cc.bytes > cc.max {
		t.Fatalf("over budget (%d of %d) or kept the least recently used chunk", cc.bytes, cc.max)
	}
	if _, ok := cc.byID[0]; !ok {
		t.Fatal("dropped the chunk used most recently but one")
	}
	// A chunk larger than the budget is still answered, alone.
	small := chunkCache{max: held / 2}
	for k := range 3 {
		if c, err := small.chunk(k, read); err != nil || c == nil {
			t.Fatal(c, err)
		}
	}
	if len(small.byID) != 1 {
		t.Fatalf("holds %d chunks over its budget", len(small.byID))
	}
}

// The default budget holds far more than the eight chunks of before.
func TestChunkCacheDefaultBudget(t *testing.T) {
	if chunkCacheBytes < 16<<20 {
		t.Fatalf("chunkCacheBytes = %d", chunkCacheBytes)
	}
}
