package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/sqlstore"
	"github.com/dsight/dsight/tools/gen/synth"
)

// BenchmarkStoreWrite writes the SQL store of a generated run with every
// source kind (DSIGHT_BENCH_SCALE, default 10; DSIGHT_BENCH_RUN to use an
// existing run) and reports its size per byte of input the build read.
//
//	go test -run '^$' -bench StoreWrite -benchtime 3x ./cmd/build
func BenchmarkStoreWrite(b *testing.B) {
	run := os.Getenv("DSIGHT_BENCH_RUN")
	if run == "" {
		scale := 10.0
		if s := os.Getenv("DSIGHT_BENCH_SCALE"); s != "" {
			scale, _ = strconv.ParseFloat(s, 64)
		}
		src, err := synth.ParseSources("aiperf,frontend,otel,workers,sglang,tachometer,trtllm,nsight")
		if err != nil {
			b.Fatal(err)
		}
		run = filepath.Join(b.TempDir(), "run")
		if _, err := synth.WriteRun(run, synth.Config{Seed: 1, Scale: scale, Sources: src}); err != nil {
			b.Fatal(err)
		}
	}
	// As a build does: the evidence rows are encoded beside the join.
	rows := sqlstore.NewEvidenceRows(b.TempDir())
	defer rows.Close()
	res, err := importer.Import(importer.Options{Run: run, Phase: "profiling", IterationTimezone: time.UTC, MaxProfileEvents: importer.DefaultMaxProfileEvents,
		EvidenceTap: rows})
	if err != nil {
		b.Fatal(err)
	}
	var input int64
	for _, s := range res.Dataset.Sources {
		input += s.Bytes
	}
	dir := b.TempDir()
	var st sqlstore.Stats
	cpu0 := cpuSeconds()
	n := 0
	for i := 0; b.Loop(); i++ {
		n++
		p := filepath.Join(dir, strconv.Itoa(i)+".sqlite")
		if st, err = sqlstore.WriteFrom(p, res.Dataset, rows); err != nil {
			b.Fatal(err)
		}
		os.Remove(p)
	}
	// CPU time, not wall time, is the number to compare on a shared box.
	b.ReportMetric((cpuSeconds()-cpu0)/float64(n), "cpu-s/op")
	var stored int64
	for _, k := range st.Rows {
		stored += k
	}
	b.ReportMetric(float64(st.Bytes)/float64(input), "store-B/input-B")
	b.ReportMetric(float64(st.Bytes)/1e6, "store-MB")
	b.ReportMetric(float64(input)/1e6, "input-MB")
	b.ReportMetric(float64(stored), "rows")
	if !st.EvidenceFromJoin {
		b.Fatal("the store read the evidence again rather than the rows the join encoded")
	}
}

// BenchmarkMCPCall is one query_trace call through the go-sdk client and
// the real server over in-memory pipes (JSON-RPC encoding both ways, the
// manifest check for a rebuilt report, the engine's answer).
func BenchmarkMCPCall(b *testing.B) {
	run := filepath.Join(b.TempDir(), "run")
	if _, err := synth.WriteRun(run, synth.Config{Seed: 1, Scale: 10}); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "report")
	if code := runBench(b, "build", run, "-o", out, "--no-sqlite"); code != 0 {
		b.Fatalf("build exit %d", code)
	}
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(&reportSource{path: out}).Connect(ctx, serverT, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"summary", map[string]any{"kind": "summary"}},
		{"requests-100", map[string]any{"kind": "requests", "from": 100, "to": 400, "limit": 100}},
		{"sessions", map[string]any{"kind": "sessions", "sort": "ttft", "limit": 20}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpToolName, Arguments: c.args})
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

func runBench(b *testing.B, args ...string) int {
	b.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	if code != 0 {
		b.Log(errOut.String())
	}
	return code
}

// cpuSeconds is the process's user + system time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
