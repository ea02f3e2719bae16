package sessionmetrics

import (
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// benchRun is n requests from 256 concurrent clients, each request 0.2–8 s
// with a first token, tokens and a few errors and cancellations, as a large
// AIPerf run records them.
func benchRun(n int) *model.Dataset {
	rng := rand.New(rand.NewPCG(1, 2))
	d := &model.Dataset{Requests: make([]model.Request, n)}
	const clients = 256
	next := make([]int64, clients)
	var last int64
	for i := range d.Requests {
		c := i % clients
		start := next[c] + int64(rng.IntN(50e6))
		lat := int64(2e8 + rng.IntN(78e8))
		first := start + lat/10
		ttft := float64(first-start) / 1e6
		in, out := int64(100+rng.IntN(4000)), int64(10+rng.IntN(500))
		status := model.StatusCompleted
		if rng.IntN(500) == 0 {
			status = model.StatusError
		} else if rng.IntN(500) == 0 {
			status = model.StatusCancelled
		}
		phase := "profiling"
		d.Requests[i] = model.Request{ID: strconv.Itoa(i), StartNS: start, EndNS: start + lat, FirstNS: &first, TTFTms: &ttft,
			InputTokens: &in, OutputTokens: &out, Status: status, Phase: &phase}
		next[c] = start + lat
		last = max(last, start+lat)
	}
	d.Meta.DurationNS = last
	return d
}

// cpuNS is the process's user and system CPU time: on a loaded machine it
// says what the derivation costs better than the wall clock does.
func cpuNS() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func benchDerive(b *testing.B, n int) {
	d := benchRun(n)
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuNS()
	for range b.N {
		if _, _, err := Derive(d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNS()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkDerive1M derives every session series of a million requests
// (about 3.4 hours of a 256-client run) and encodes their summaries.
func BenchmarkDerive1M(b *testing.B) { benchDerive(b, 1_000_000) }

// BenchmarkDerive2M is twice the million, for the same check.
func BenchmarkDerive2M(b *testing.B) { benchDerive(b, 2_000_000) }

// BenchmarkDerive100k is the same at a tenth of the size, to check the
// derivation is linear in the requests.
func BenchmarkDerive100k(b *testing.B) { benchDerive(b, 100_000) }
