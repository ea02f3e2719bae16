package importer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dsight/dsight/tools/gen/synth"
)

// The OTel exports are decoded while the sources read before them are
// read: the worker logs are not opened until the OTel export is, which a
// decode at the OTel exports' turn (after the worker logs) never does.
func TestOTelDecodesBesideTheOtherSources(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 5, Requests: 60, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers}); err != nil {
		t.Fatal(err)
	}
	otelOpened := make(chan struct{})
	var once sync.Once
	open := func(path string) (file, error) {
		switch {
		case strings.HasSuffix(path, "traces.jsonl"):
			once.Do(func() { close(otelOpened) })
		case strings.HasSuffix(path, ".out") && !strings.Contains(filepath.Base(path), "_frontend_"):
			select {
			case <-otelOpened:
			case <-time.After(time.Minute): // a guard against waiting forever, not a measure of speed
				return nil, os.ErrDeadlineExceeded
			}
		}
		return openOS(path)
	}
	if _, err := Import(Options{Run: dir, open: open}); err != nil {
		t.Fatalf("the worker logs waited for an OTel export that was not opened before them: %v", err)
	}
}

// An import whose OTel decode ran beside the other sources is the import
// that decodes at the OTel exports' turn: sources (ids, order, digests),
// warnings in their order, counters, requests and both shards, with
// warnings from the logs and the OTel export alike, and errors too.
func TestOTelDecodedEarlyImportsAsInTurn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{
		Seed: 7, Requests: 400, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers | synth.SourceSGLang,
		OTelUntraced: 0.1, OTelDuplicate: true, ClockOddities: true, Hostile: true, Timezone: "UTC",
	}); err != nil {
		t.Fatal(err)
	}
	// Empty logs, to warn about in every kind read before the OTel turn.
	for _, name := range []string{"node-009_frontend_0.out", "node-009_decode_w0.out"} {
		if err := os.WriteFile(filepath.Join(dir, "logs", name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A second collector's export that recorded nothing.
	if err := os.MkdirAll(filepath.Join(dir, "logs/otel/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "logs/otel/empty/traces.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		core, evidence string
		sources, warn  string
		audit          map[string]int64
	}
	run := func(early bool) outcome {
		t.Helper()
		defer func(was bool) { decodeOTelEarly = was }(decodeOTelEarly)
		decodeOTelEarly = early
		res, err := Import(Options{Run: dir, IterationTimezone: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		d := res.Dataset
		var src []string
		for _, s := range d.Sources {
			src = append(src, strings.Join([]string{s.Kind, s.Path, s.SHA256}, " "))
		}
		core, evidence := tracedShardHashes(t, Options{Run: dir, IterationTimezone: time.UTC})
		return outcome{core, evidence, strings.Join(src, "\n"), strings.Join(d.Meta.Warnings, "\n"), d.Audit}
	}
	inTurn, early := run(false), run(true)
	if inTurn.sources != early.sources {
		t.Errorf("sources:\nin turn\n%s\nearly\n%s", inTurn.sources, early.sources)
	}
	if inTurn.warn != early.warn {
		t.Errorf("warnings:\nin turn\n%s\nearly\n%s", inTurn.warn, early.warn)
	}
	if !reflect.DeepEqual(inTurn.audit, early.audit) {
		t.Errorf("counters:\nin turn %v\nearly   %v", inTurn.audit, early.audit)
	}
	if inTurn.core != early.core || inTurn.evidence != early.evidence {
		t.Errorf("shards: in turn %s %s, early %s %s", inTurn.core, inTurn.evidence, early.core, early.evidence)
	}
	for _, want := range []string{"a frontend log that records", "a worker log that records", "recorded no spans"} {
		if !strings.Contains(early.warn, want) {
			t.Errorf("the run does not warn of %q:\n%s", want, early.warn)
		}
	}
}

// A build that fails names the error the in-turn read meets first: a
// client export's, though the OTel export decoded beside it failed too.
func TestOTelDecodedEarlyFailsAsInTurn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 9, Requests: 40, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers}); err != nil {
		t.Fatal(err)
	}
	damage := func(glob string) {
		t.Helper()
		found, _ := filepath.Glob(filepath.Join(dir, glob))
		if len(found) != 1 {
			t.Fatalf("%s: %v", glob, found)
		}
		f, err := os.OpenFile(found[0], os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString("{not json\n"); err != nil {
			t.Fatal(err)
		}
	}
	importErr := func(early bool) string {
		t.Helper()
		defer func(was bool) { decodeOTelEarly = was }(decodeOTelEarly)
		decodeOTelEarly = early
		_, err := Import(Options{Run: dir})
		if err == nil {
			t.Fatal("a damaged run was imported")
		}
		return err.Error()
	}
	damage("logs/otel/*/traces.jsonl")
	otelErr := importErr(false)
	if got := importErr(true); got != otelErr {
		t.Errorf("OTel export damaged: %q, in turn %q", got, otelErr)
	}
	damage("logs/artifacts/*/profile_export.jsonl")
	clientErr := importErr(false)
	if clientErr == otelErr {
		t.Fatalf("the client export's damage is not what fails the build: %s", clientErr)
	}
	if got := importErr(true); got != clientErr {
		t.Errorf("both damaged: %q, in turn %q", got, clientErr)
	}
}
