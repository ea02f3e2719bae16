package lifecycle_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
)

// stageRequests is the written run's request and random ones (inverted
// spans, retries, repeated milestones, missing or outside first tokens).
func stageRequests(t *testing.T, n int) []*model.RequestEvidence {
	j := jointest.JoinWriteRun(t)
	reqs := []*model.RequestEvidence{&j.Requests[0]}
	seed := encodeFuzzRequest(t, &j.Requests[0])
	rng := rand.New(rand.NewPCG(9, 10))
	for len(reqs) < n {
		b := make([]byte, fuzzHeader+fuzzSpanSize*rng.IntN(24))
		for k := range b {
			b[k] = byte(rng.IntN(256))
		}
		if len(reqs)%3 == 0 {
			b = append([]byte(nil), seed...)
			for range 4 {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
		}
		if r := decodeFuzzRequest(b); r != nil {
			reqs = append(reqs, r)
		}
	}
	return reqs
}

// Stages through one reused Scratch are Derive's stages of each request
// alone, field for field, but for the description.
func TestStagesAreDerives(t *testing.T) {
	var sc lifecycle.Scratch
	available := 0
	for n, r := range stageRequests(t, 1000) {
		want := lifecycle.Derive(r)
		got := sc.Stages(r)
		if !want.Available {
			if len(got) != 0 {
				t.Fatalf("request %d: no lifecycle, but %d stages", n, len(got))
			}
			continue
		}
		available++
		if len(got) != len(want.Stages) {
			t.Fatalf("request %d: %d stages, Derive has %d", n, len(got), len(want.Stages))
		}
		for k := range want.Stages {
			w := want.Stages[k]
			if w.Description == "" {
				t.Fatalf("request %d stage %d: Derive gave no description", n, k)
			}
			w.Description = ""
			if !reflect.DeepEqual(got[k], w) {
				t.Fatalf("request %d stage %d:\n got %+v\nwant %+v", n, k, got[k], w)
			}
		}
	}
	if available < 300 {
		t.Fatalf("only %d requests have a lifecycle", available)
	}
}

// Stages reuses its buffers: after the first request, what it allocates
// is the stages' own pointers (hosts, span ids) and the derivation's
// words, not a lifecycle's slices, descriptions and rows. For this
// request Derive allocates ~17 KB, Stages ~1.2 KB.
func TestStagesReuseTheirBuffers(t *testing.T) {
	j := jointest.JoinWriteRun(t)
	r := &j.Requests[0]
	var sc lifecycle.Scratch
	if len(sc.Stages(r)) == 0 {
		t.Fatal("the written run's request has no stages")
	}
	derive := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lifecycle.Derive(r)
		}
	})
	stages := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sc.Stages(r)
		}
	})
	t.Logf("Derive %d B, %d allocations; Stages %d B, %d allocations", derive.AllocedBytesPerOp(), derive.AllocsPerOp(),
		stages.AllocedBytesPerOp(), stages.AllocsPerOp())
	if stages.AllocedBytesPerOp()*4 > derive.AllocedBytesPerOp() {
		t.Fatalf("Stages allocates %d bytes a request, Derive %d", stages.AllocedBytesPerOp(), derive.AllocedBytesPerOp())
	}
}

func BenchmarkStages(b *testing.B) {
	j := jointest.JoinWriteRun(b)
	r := &j.Requests[0]
	var sc lifecycle.Scratch
	for b.Loop() {
		if len(sc.Stages(r)) == 0 {
			b.Fatal("no stages")
		}
	}
}
