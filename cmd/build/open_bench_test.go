package main

import (
	"io"
	"os"
	"testing"
)

// BenchmarkQueryCommand times one `dsight query` in process, report open
// included (process start is what tools/clibench adds): the report is
// DSIGHT_BENCH_REPORT, e.g. a scale-10 build; without it the benchmark is
// skipped. Run with -cpuprofile to see where the open goes:
//
//	DSIGHT_BENCH_REPORT=/tmp/rep10 go test -run '^$' -bench QueryCommand -benchmem ./cmd/build
func BenchmarkQueryCommand(b *testing.B) {
	dir := os.Getenv("DSIGHT_BENCH_REPORT")
	if dir == "" {
		b.Skip("set DSIGHT_BENCH_REPORT to a report directory")
	}
	for _, q := range [][]string{
		{"summary"},
		{"requests", "--limit", "20"},
		{"sessions", "--limit", "20"},
		{"workers"},
		{"metric_families"},
		{"sources", "--limit", "20"},
		{"server_spans", "--limit", "20"},
	} {
		b.Run(q[0], func(b *testing.B) {
			for range b.N {
				if err := queryCmd(append([]string{dir}, q...), io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
