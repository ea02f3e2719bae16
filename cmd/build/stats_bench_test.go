package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// BenchmarkStatsReport answers "stats" on a built report as the page asks
// it (bench-stats.mjs): over the whole run and over 1 % of it, for the
// requests alone and with the in-flight series, shards loaded first. The
// "answer" sub-benchmarks stop before the JSON, so the difference to the
// full ones is the encoding. The report is DSIGHT_BENCH_REPORT:
//
//	DSIGHT_BENCH_REPORT=/tmp/rep100k go test -run '^$' -bench StatsReport -benchmem ./cmd/build
func BenchmarkStatsReport(b *testing.B) {
	dir := os.Getenv("DSIGHT_BENCH_REPORT")
	if dir == "" {
		b.Skip("set DSIGHT_BENCH_REPORT to a report directory")
	}
	rep, err := report.OpenLazy(dir)
	if err != nil {
		b.Fatal(err)
	}
	e, err := query.New(rep.Core)
	if err != nil {
		b.Fatal(err)
	}
	d := rep.Core.Meta.DurationNS
	dur := float64(d) / 1e9
	for _, rg := range []struct {
		name     string
		from, to float64
	}{{"whole", 0, dur}, {"one_percent", dur * 0.5, dur * 0.51}} {
		for _, sel := range []string{`"ids":[]`, `"name":"session_in_flight_requests"`} {
			body := fmt.Sprintf(`{"op":"stats","args":{"from":%v,"to":%v,%s}}`, rg.from, rg.to, sel)
			var req wireRequest
			if err := json.Unmarshal([]byte(body), &req); err != nil {
				b.Fatal(err)
			}
			if _, err := askLazy(e, rep, req); err != nil {
				b.Fatal(err)
			}
			kind := "requests"
			if sel != `"ids":[]` {
				kind = "in_flight"
			}
			var qr query.Request
			if err := json.Unmarshal([]byte(body), &qr); err != nil {
				b.Fatal(err)
			}
			b.Run(rg.name+"/"+kind+"/answer", func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := processCPU()
				for range b.N {
					if _, err := e.Do(qr); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
			})
			b.Run(rg.name+"/"+kind+"/json", func(b *testing.B) {
				b.ReportAllocs()
				var n int
				cpu0 := processCPU()
				for range b.N {
					n = len(e.Handle([]byte(body)))
				}
				b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(n), "bytes")
			})
		}
	}
}
