package importer

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/tools/gen/synth"
)

func TestMetricsOnlyRunIsFramedByItsSamples(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 50, Timezone: "UTC", Sources: synth.SourceTachometer}); err != nil {
		t.Fatal(err)
	}
	c, err := tachometer.Discover(filepath.Join(dir, "logs", "tachometer", "local"), false)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, ok, err := c.TimeRange()
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	res, err := Import(Options{Run: dir, IterationTimezone: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if d.Meta.OriginNS != lo || d.Meta.DurationNS != hi-lo {
		t.Fatalf("window [%d, +%d], capture spans [%d, %d]", d.Meta.OriginNS, d.Meta.DurationNS, lo, hi)
	}
	if len(d.Metrics) == 0 || len(d.Requests) != 0 {
		t.Fatalf("%d series, %d requests", len(d.Metrics), len(d.Requests))
	}
	kinds := map[string]int{}
	for _, s := range d.Sources {
		kinds[s.Kind]++
	}
	if kinds["tachometer_raw"] != len(c.Files) || len(d.Unread) != 0 {
		t.Fatalf("sources %v, unread %v", kinds, d.Unread)
	}
}
