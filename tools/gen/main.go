// Command gen writes a deterministic synthetic benchmark run directory for
// dsight to import: the same flags always produce byte-identical files.
//
//	go run ./tools/gen -out DIR [-seed 1] [-scale 1] [-requests N] [-concurrency C] [-hostile]
//
// It prints a one-line JSON summary (paths, counts, bytes) on stdout.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

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
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -out DIR [-seed N] [-scale F | -requests N] [-concurrency C] [-hostile]")
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
