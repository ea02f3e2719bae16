// Command gen writes a deterministic synthetic benchmark run directory for
// dsight to import: the same flags always produce byte-identical files.
//
//	go run ./tools/gen -out DIR [-seed 1] [-scale 1 | -requests N] [-concurrency C] [-hostile]
//	    [-sources aiperf,frontend,otel,workers,sglang,tokenspeed,tachometer,trtllm,nsight] [-timezone UTC]
//	    [-otel-untraced 0] [-otel-duplicate] [-clock-oddities] [-samples N] [-nsight-ranges N] [-nsight-irregular]
//
// It prints a one-line JSON summary (paths, counts, bytes) on stdout.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	_ "time/tzdata" // -timezone works without the system zone database

	"github.com/dsight/dsight/tools/gen/synth"
)

func main() {
	var c synth.Config
	out := flag.String("out", "", "run directory to write (required)")
	flag.Uint64Var(&c.Seed, "seed", 1, "generator seed")
	flag.Float64Var(&c.Scale, "scale", 1, fmt.Sprintf("run size; 1 is about %d requests over ten minutes", synth.RequestsPerScale))
	flag.IntVar(&c.Requests, "requests", 0, "total request count, overriding -scale")
	flag.IntVar(&c.Concurrency, "concurrency", 0, fmt.Sprintf("overlapping sessions; 0 derives it from the request count (at most %d)", synth.MaxConcurrency))
	flag.BoolVar(&c.Hostile, "hostile", false, "plant markup and quotes in a few ids to test escaping")
	flag.StringVar(&c.Benchmark, "benchmark", "", "artifact directory name (default derived from the concurrency)")
	sources := flag.String("sources", synth.DefaultSources.String(),
		"comma-separated sources to write, from "+synth.AllSources().String()+" (aiperf and agentperf are alternative clients)")
	flag.StringVar(&c.Timezone, "timezone", "UTC", "IANA zone of the workers' local log timestamps")
	flag.Float64Var(&c.OTelUntraced, "otel-untraced", 0, "fraction of requests that export no OTel spans")
	flag.BoolVar(&c.OTelDuplicate, "otel-duplicate", false, "write a second collector export with a copy of every span")
	flag.BoolVar(&c.ClockOddities, "clock-oddities", false, "plant a request with skewed worker spans, one with out-of-order milestones and a retry served under two request ids")
	flag.Int64Var(&c.Samples, "samples", 0, "least number of Tachometer rows; idle nodes' GPUs are scraped too to reach it (0: the deployment's own endpoints)")
	flag.Int64Var(&c.NsightRanges, "nsight-ranges", 0, "NVTX ranges per worker Nsight export (0: one scheduler iteration every 20 ms)")
	flag.BoolVar(&c.NsightIrregular, "nsight-irregular", false, "worker Nsight exports shaped like real ones: irregular durations and gaps, ~1,300 distinct names, four threads, nested and unselected ranges")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -out DIR [-seed N] [-scale F | -requests N] [-concurrency C] [-hostile] [-sources LIST] [-timezone ZONE] [-otel-untraced F] [-otel-duplicate] [-clock-oddities] [-samples N]")
		os.Exit(2)
	}
	var err error
	if c.Sources, err = synth.ParseSources(*sources); err != nil {
		fmt.Fprintf(os.Stderr, "gen: -sources: %v\n", err)
		os.Exit(2)
	}
	s, err := synth.WriteRun(*out, c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
	line, err := json.Marshal(s)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%s\n", line)
}
