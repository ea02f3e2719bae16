package lifecycle_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
)

// A Scratch reused across requests gives each the activities and stages
// Derive gives it alone: the written run's request and a thousand random
// ones (inverted spans, retries, repeated milestones, missing or outside
// first tokens), one after the other through one Scratch.
func TestTimelineIsDerive(t *testing.T) {
	j := jointest.JoinWriteRun(t)
	reqs := []*model.RequestEvidence{&j.Requests[0]}
	seed := encodeFuzzRequest(t, &j.Requests[0])
	rng := rand.New(rand.NewPCG(7, 8))
	for len(reqs) < 1000 {
		b := make([]byte, fuzzHeader+fuzzSpanSize*rng.IntN(24))
		for k := range b {
			b[k] = byte(rng.IntN(256))
		}
		if len(reqs)%3 == 0 { // the written run, a few bytes changed
			b = append([]byte(nil), seed...)
			for range 4 {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
		}
		if r := decodeFuzzRequest(b); r != nil {
			reqs = append(reqs, r)
		}
	}
	var sc lifecycle.Scratch
	available := 0
	for n, r := range reqs {
		want := lifecycle.Derive(r)
		acts, stages := sc.Timeline(r)
		if !want.Available {
			if acts != nil || stages != nil {
				t.Fatalf("request %d: no lifecycle, but a timeline of %d activities", n, len(acts))
			}
			continue
		}
		available++
		if !reflect.DeepEqual(acts, want.Activities) {
			t.Fatalf("request %d: activities differ from Derive's", n)
		}
		if len(stages) != len(want.Stages) {
			t.Fatalf("request %d: %d stages, Derive has %d", n, len(stages), len(want.Stages))
		}
		for k, s := range want.Stages {
			host := ""
			if s.Host != nil {
				host = *s.Host
			}
			got := stages[k]
			if got.Label != s.Label || got.Role != s.Role || got.Host != host || got.StartNS != s.StartNS || got.EndNS != s.EndNS || !reflect.DeepEqual(got.Evidence, s.Evidence) {
				t.Fatalf("request %d stage %d: %+v, Derive has %+v", n, k, got, s)
			}
		}
	}
	if available < 300 {
		t.Fatalf("only %d of %d requests have a lifecycle", available, len(reqs))
	}
}
