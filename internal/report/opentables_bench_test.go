package report

import (
	"os"
	"testing"

	"github.com/dsight/dsight/internal/query"
)

// BenchmarkOpenLazyTables is a one-shot question's open as dsight query
// does it (the tables the kind reads, the engine, the answer), per kind,
// over the report DSIGHT_BENCH_REPORT names: the allocations and bytes
// are what a CLI question pays before it prints.
func BenchmarkOpenLazyTables(b *testing.B) {
	dir := os.Getenv("DSIGHT_BENCH_REPORT")
	if dir == "" {
		b.Skip("DSIGHT_BENCH_REPORT names no report")
	}
	for _, op := range []string{"summary", "requests", "sessions", "workers", "metric_families"} {
		b.Run(op, func(b *testing.B) {
			b.ReportAllocs()
			req := []byte(`{"op":"` + op + `"}`)
			for range b.N {
				rep, err := OpenLazyTables(dir, query.SkippedTables(op, nil))
				if err != nil {
					b.Fatal(err)
				}
				e, err := query.New(rep.Core)
				if err != nil {
					b.Fatal(err)
				}
				if out := e.Handle(req); len(out) == 0 {
					b.Fatal("empty answer")
				}
			}
		})
	}
}
