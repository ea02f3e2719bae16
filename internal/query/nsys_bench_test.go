package query

import (
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// benchNsysEngine is a report engine over one profile of n ranges (one
// every 10 µs, 5 µs long) holding no detail shard: like the page, a
// question names the shards it needs, which are then given over, within
// the cache budget.
func benchNsysEngine(b *testing.B, n int) (*Engine, map[string][]byte, float64) {
	d := nsightFixture(0)
	p := &d.Profiles[0]
	p.Ranges = make([]model.NVTXRange, n)
	for k := range n {
		p.Ranges[k] = model.NVTXRange{StartNS: int64(k) * 10_000, EndNS: int64(k)*10_000 + 5_000, GlobalTID: bigTID, RowID: int64(k + 1), Name: int32(k % 2)}
	}
	p.Capture = [2]int64{0, int64(n)*10_000 + 1}
	p.Counts.Kept = int64(n)
	d.Meta.DurationNS = int64(n)*10_000 + 2*s
	d.Profiles = d.Profiles[:1]
	d, details, err := profileDetails(d)
	if err != nil {
		b.Fatal(err)
	}
	c, err := catalog.Open(catalog.Encode(d))
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(c)
	if err != nil {
		b.Fatal(err)
	}
	return e, details, seconds(d.Meta.DurationNS)
}

// BenchmarkNsysZoom asks "nsys" for random windows holding ~20,000 rows
// (the exact threshold), limit 10,000, giving the shards each names, as a
// zoom does. DSIGHT_NSYS_BENCH_RANGES sets the profile size (default
// 10,000,000).
func BenchmarkNsysZoom(b *testing.B) {
	n := 10_000_000
	if v, err := strconv.Atoi(os.Getenv("DSIGHT_NSYS_BENCH_RANGES")); err == nil && v > 0 {
		n = v
	}
	e, details, dur := benchNsysEngine(b, n)
	rng := rand.New(rand.NewPCG(1, 2))
	width := 20_000 * 10e-6 // seconds holding 20,000 ranges
	b.ReportAllocs()
	cpu0 := cpuNS()
	b.ResetTimer()
	defer func() {
		// CPU time per zoom: on a shared machine wall time is mostly waiting.
		b.ReportMetric(float64(cpuNS()-cpu0)/float64(b.N), "cpu-ns/op")
	}()
	for range b.N {
		from := 1 + rng.Float64()*(dur-2-width)
		a := Args{From: &from, To: ptr(from + width), Limit: ptr(MaxNsysLimit), Offset: ptr(0), Profile: ptr(0)}
		for {
			out, err := e.nsys(a)
			if qe, ok := err.(*Error); ok && qe.Code == CodeShardsNeeded {
				for _, need := range qe.Shards {
					if err := e.Give(need.ID, details[need.ID]); err != nil {
						b.Fatal(err)
					}
				}
				continue
			}
			if err != nil {
				b.Fatal(err)
			}
			if out.Total < 19_000 || len(out.Items) != MaxNsysLimit {
				b.Fatalf("total %d items %d", out.Total, len(out.Items))
			}
			break
		}
	}
}

// cpuNS is the user and system CPU time of the process so far.
func cpuNS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
