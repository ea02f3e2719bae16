package query

import (
	"encoding/json"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
)

// nsys_prefetch names the chunks the engine does not hold, the ones
// overlapping the window first and then by distance, never a held one.
func TestNsysPrefetchNamesTheChunksNearestTheWindowFirst(t *testing.T) {
	d, details, err := profileDetails(nsightFixture(3*catalog.ProfileChunkRows + 100))
	if err != nil {
		t.Fatal(err)
	}
	e := withoutEvidence(t, d)
	ask := func(args string) []PrefetchChunk {
		t.Helper()
		out := e.Handle([]byte(`{"op":"nsys_prefetch","args":` + args + `}`))
		var env struct {
			OK     bool            `json:"ok"`
			Error  string          `json:"error"`
			Result []PrefetchChunk `json:"result"`
		}
		if err := json.Unmarshal(out, &env); err != nil || !env.OK {
			t.Fatalf("%s: %v %s", args, err, out)
		}
		return env.Result
	}
	all := ask(`{"profile":0,"from":1.2,"to":1.21}`)
	if len(all) != len(d.Profiles[0].Chunks) {
		t.Fatalf("%d chunks named, want %d", len(all), len(d.Profiles[0].Chunks))
	}
	// The fixture's chunks lie 1.0–1.25 s: the third overlaps the window,
	// the fourth starts 0.036 s after it, the second ends 0.036 s before.
	want := []int{2, 3, 1, 0}
	for k, i := range want {
		if all[k].ID != d.Profiles[0].Chunks[i].ID {
			t.Errorf("chunk %d is %s, want chunk %d", k, all[k].ID, i)
		}
	}
	if all[0].Distance != 0 || all[0].Range[0] > 1.2 || all[0].Range[1] < 1.21 {
		t.Errorf("first %+v: want the chunk overlapping the window", all[0])
	}
	for k := 1; k < len(all); k++ {
		if all[k].Distance < all[k-1].Distance {
			t.Errorf("chunk %d at %g after one at %g", k, all[k].Distance, all[k-1].Distance)
		}
		if all[k].Distance <= 0 || all[k].Range[0] > all[k].Range[1] {
			t.Errorf("chunk %d: %+v", k, all[k])
		}
	}
	if got := ask(`{"profile":0,"from":1.2,"to":1.21,"limit":2}`); len(got) != 2 || got[0].ID != all[0].ID || got[1].ID != all[1].ID {
		t.Errorf("limit 2: %+v", got)
	}
	if err := e.Give(all[0].ID, details[all[0].ID]); err != nil {
		t.Fatal(err)
	}
	if got := ask(`{"profile":0,"from":1.2,"to":1.21}`); len(got) != len(all)-1 || got[0].ID != all[1].ID {
		t.Errorf("after giving the nearest: %d named, first %s", len(got), got[0].ID)
	}
	if st, _ := e.detailCacheOp(Args{}); st.CachedChunks != 1 {
		t.Errorf("planning touched the cache: %+v", st)
	}
}
