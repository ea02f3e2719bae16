package importer

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/model"
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

// stagedBlob marks a summary handed to a SummaryStager.
type stagedBlob struct{ model.Blob }

// Every metric summary is handed to Options.StageSummary once, with its
// compressed bytes, and the series keeps the Blob it returns.
func TestImportHandsEverySummaryToTheStager(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 50, Timezone: "UTC", Sources: synth.SourceTachometer}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	handed := 0
	res, err := Import(Options{Run: dir, IterationTimezone: time.UTC,
		StageSummary: func(payload model.Blob, gz []byte, decoded int) model.Blob {
			if b, err := payload.Bytes(); err != nil || !bytes.Equal(b, gz) || decoded <= 0 {
				t.Errorf("the stager got bytes other than the payload's (%v), or %d decoded bytes", err, decoded)
			}
			mu.Lock()
			handed++
			mu.Unlock()
			return stagedBlob{payload}
		}})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if len(d.Metrics) == 0 || handed != len(d.Metrics) {
		t.Fatalf("%d summaries handed over for %d series", handed, len(d.Metrics))
	}
	for _, m := range d.Metrics {
		if _, ok := m.Summary.Payload.(stagedBlob); !ok {
			t.Fatalf("series %d (%s) keeps a %T, not the stager's Blob", m.ID, m.Name, m.Summary.Payload)
		}
	}
}
