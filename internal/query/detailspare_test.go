package query

import (
	"fmt"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
)

// Spare shards (the idle prefetch's) go first when the cache needs room,
// before any an answer read, and the cache stays within its budget.
func TestDetailSpareShardsGoFirst(t *testing.T) {
	n := 4 * catalog.ProfileChunkRows
	d, details, err := profileDetails(nsightFixture(n))
	if err != nil {
		t.Fatal(err)
	}
	e := withoutEvidence(t, d)
	chunks := d.Profiles[0].Chunks
	if len(chunks) != 4 {
		t.Fatalf("%d chunks", len(chunks))
	}
	if _, msg := ask(t, e, `{"op":"detail_spare","args":{"id":"`+chunks[0].ID+`"}}`); msg == "" {
		t.Error("a shard the engine does not hold was marked spare")
	}
	// The view reads chunk 0 (offset 0); chunks 1..3 are given as spare.
	if err := e.Give(chunks[0].ID, details[chunks[0].ID]); err != nil {
		t.Fatal(err)
	}
	if _, qerr := askNsys(t, e, `{"profile":0,"offset":0,"limit":10}`); qerr != nil {
		t.Fatal(qerr)
	}
	var one float64
	for _, ch := range chunks[1:] {
		if err := e.Give(ch.ID, details[ch.ID]); err != nil {
			t.Fatal(err)
		}
		res, msg := ask(t, e, `{"op":"detail_spare","args":{"id":"`+ch.ID+`"}}`)
		if msg != "" {
			t.Fatal(msg)
		}
		one = res["decodedBytes"].(float64) / res["cachedChunks"].(float64)
	}
	// A budget of three chunks: one spare goes, the read one stays.
	res, _ := ask(t, e, fmt.Sprintf(`{"op":"detail_cache","args":{"max_bytes":%d}}`, int64(3*one)))
	if res["cachedChunks"] != 3.0 || res["decodedBytes"].(float64) > 3*one {
		t.Fatalf("cache %v", res)
	}
	held, _ := e.detailClaim([]string{chunks[0].ID})
	if held[chunks[0].ID] == nil {
		t.Error("the chunk an answer read went before a spare one")
	}
	// A budget of none drops every spare shard too: none pins memory.
	res, _ = ask(t, e, `{"op":"detail_cache","args":{"max_bytes":0}}`)
	if res["cachedChunks"] != 0.0 {
		t.Errorf("spare shards pinned: %v", res)
	}
}
