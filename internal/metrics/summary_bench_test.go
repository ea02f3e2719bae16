package metrics

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/tools/gen/synth"
)

// keptSpill is a spill whose series survive being summarized, so that a
// benchmark can summarize the same capture again.
type keptSpill struct{ *spillStore }

func (keptSpill) release(int) {}

// BenchmarkSummarizeCapture times the second pass of a capture read alone:
// every series of a 2,000,000-sample capture loaded from the spill
// (read back per run of blocks), summarized, encoded and compressed, on one goroutine and on one
// per core. The results are the same either way (the output keeps series
// order); the ratio of the two is what the workers buy on this machine.
func BenchmarkSummarizeCapture(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "run")
	sum, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 20_000, Timezone: "UTC", Sources: synth.SourceTachometer, Samples: 2_000_000})
	if err != nil {
		b.Fatal(err)
	}
	c, err := tachometer.Discover(filepath.Join(dir, "logs", filepath.FromSlash(tachometer.DefaultRoot)), false)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Inspect(); err != nil {
		b.Fatal(err)
	}
	spill, err := newSpillStore(0)
	if err != nil {
		b.Fatal(err)
	}
	defer spill.close()
	r, err := tachometer.Read(c, tachometer.Options{Window: &tachometer.Window{StartNS: sum.StartNS, EndNS: sum.EndNS}}, spill)
	if err != nil {
		b.Fatal(err)
	}
	if err := spill.endRead(); err != nil {
		b.Fatal(err)
	}
	desc := map[string]tachometer.Description{}
	for _, f := range r.Families {
		desc[f.Name] = f.Description
	}
	sourceIDs := make([]int, len(c.Files))
	for i := range sourceIDs {
		sourceIDs[i] = i
	}
	infos := spill.seriesInfos()
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			spool, err := newSummarySpool()
			if err != nil {
				b.Fatal(err)
			}
			cs := &captureSummary{opt: Options{OriginNS: sum.StartNS}, store: keptSpill{spill}, spool: spool, infos: infos,
				result: r, sourceIDs: sourceIDs, desc: desc, distinct: distinguishingLabels(infos), workers: workers}
			var points int64
			b.ResetTimer()
			for range b.N {
				out, err := cs.all()
				if err != nil {
					b.Fatal(err)
				}
				points = 0
				for _, s := range out {
					points += s.meta.Samples
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*points), "ns/point")
			b.ReportMetric(float64(len(infos)), "series")
		})
	}
}
