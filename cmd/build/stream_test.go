package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/sqlstore"
	"github.com/dsight/dsight/tools/gen/synth"
	"github.com/dsight/dsight/web"
)

// The build streams its server evidence; the report it writes, every
// shard, the manifest and trace-data.sqlite, is byte for byte the one the
// in-memory import gives.
func TestStreamedBuildWritesTheHeldReport(t *testing.T) {
	needAssets(t)
	run := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(run, synth.Config{
		Seed: 11, Requests: 400, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
		OTelUntraced: 0.1, OTelDuplicate: true, ClockOddities: true,
	}); err != nil {
		t.Fatal(err)
	}
	write := func(stream bool, out string) {
		res, err := importer.Import(importer.Options{Run: run, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if stream && (res.Dataset.StreamedEvidence == nil || len(res.Dataset.Evidence) != 0) {
			t.Fatal("the streamed import holds its evidence records")
		}
		if _, err := report.Write(res.Dataset, web.Assets(), out, report.Options{Store: sqlstore.WriteFile}); err != nil {
			t.Fatal(err)
		}
	}
	held, streamed := filepath.Join(t.TempDir(), "held"), filepath.Join(t.TempDir(), "streamed")
	write(false, held)
	write(true, streamed)
	files := 0
	if err := filepath.WalkDir(held, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(held, p)
		a, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(streamed, rel))
		if err != nil {
			return err
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the held and the streamed build", rel)
		}
		files++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(streamed, sqlstore.File)); err != nil || files < 4 {
		t.Fatalf("%d files compared; store: %v", files, err)
	}
}
