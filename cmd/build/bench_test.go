package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/tools/gen/synth"
)

// BenchmarkLifecycleAnswer times the engine's lifecycle answer on a built
// traced report: cold asks a request of a different server evidence chunk
// each time (more chunks than the engine keeps decoded), warm asks one
// request again. The page adds only the JS → wasm call (~25 µs) and the
// JSON parse; run it under wasm with
// GOOS=js GOARCH=wasm go test -run X -bench Lifecycle -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./cmd/build
// (the synthetic run and report are written to a temporary directory).
func BenchmarkLifecycleAnswer(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 3,000-request traced report")
	}
	core := benchReport(b, synth.Config{Seed: 4, Requests: 3000, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers})
	n := len(core.Server.Request)
	var ids []string
	for k := 0; k < n; k += catalog.EvidencePerChunk { // one request per chunk
		ids = append(ids, core.Requests.ID[core.Server.Request[k]])
	}
	if len(ids) < 10 {
		b.Fatalf("only %d chunks", len(ids))
	}
	ask := func(id string) []byte { return []byte(fmt.Sprintf(`{"op":"lifecycle","args":{"id":%q}}`, id)) }
	same := ask(ids[0])
	for _, c := range []struct {
		name string
		q    func(i int) []byte
	}{
		{"cold", func(i int) []byte { return ask(ids[i%len(ids)]) }},
		{"warm", func(int) []byte { return same }},
	} {
		b.Run(c.name, func(b *testing.B) {
			e, err := query.New(core)
			if err != nil {
				b.Fatal(err)
			}
			qs := make([][]byte, b.N)
			for i := range qs {
				qs[i] = c.q(i)
			}
			b.ResetTimer()
			for i := range b.N {
				e.Handle(qs[i])
			}
		})
	}
}

// BenchmarkTimelineZoom times the engine's "timeline" answer the page asks
// on every zoom and pan, over an AIPerf run of 100,000 requests, for a
// seeded walk of ranges from a thousandth of the run to all of it. Run it
// under wasm as BenchmarkLifecycleAnswer says.
func BenchmarkTimelineZoom(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 100,000-request report")
	}
	core := benchReport(b, synth.Config{Seed: 1, Requests: 100000, Sources: synth.SourceAIPerf})
	e, err := query.New(core)
	if err != nil {
		b.Fatal(err)
	}
	d := float64(core.Meta.DurationNS) / 1e9
	seed := uint64(1)
	rnd := func() float64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return float64(seed>>11) / (1 << 53)
	}
	for _, c := range []struct {
		name  string
		width func() float64 // fraction of the run
	}{
		{"mixed", func() float64 { return math.Pow(1000, -rnd()) }}, // a thousandth to all of it, log-uniform
		{"wide", func() float64 { return 0.5 + rnd()/2 }},
	} {
		for _, order := range []string{"ttft", "start"} { // the page's default order first
			var qs [][]byte
			for range 64 {
				w := d * c.width()
				a := rnd() * (d - w)
				qs = append(qs, []byte(fmt.Sprintf(`{"op":"timeline","args":{"from":%g,"to":%g,"search":"","sort":%q,"expanded":[],"offset":0,"limit":7}}`, a, a+w, order)))
			}
			b.Run(c.name+"/"+order, func(b *testing.B) {
				for i := range b.N {
					e.Handle(qs[i%len(qs)])
				}
			})
		}
	}
}

// benchReport builds a synthetic run into a temporary report and opens its
// core; it skips when the page assets were not built.
func benchReport(b *testing.B, cfg synth.Config) *catalog.Core {
	b.Helper()
	dir := b.TempDir()
	run := filepath.Join(dir, "run")
	if _, err := synth.WriteRun(run, cfg); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	if err := build([]string{run, "-o", out}, io.Discard); err != nil {
		b.Skip("report not built (page assets missing? run `make assets`): ", err)
	}
	core, _, err := report.OpenDir(out)
	if err != nil {
		b.Fatal(err)
	}
	return core
}
