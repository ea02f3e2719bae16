package importer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/tools/gen/synth"
)

// TestUnalignedCaptureFileIsUnread replaces a run's capture tail by a file
// written the way older Tachometer versions did, without timestamp_ns: the
// build goes on without it, lists it as unread and says why.
func TestUnalignedCaptureFileIsUnread(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 20, Sources: synth.SourceAIPerf | synth.SourceTachometer}); err != nil {
		t.Fatal(err)
	}
	leaves, err := filepath.Glob(filepath.Join(dir, "logs", "tachometer", "local", "*"))
	if err != nil || len(leaves) != 1 {
		t.Fatalf("capture leaves %v (%v)", leaves, err)
	}
	rel := strings.TrimPrefix(filepath.ToSlash(filepath.Join(leaves[0], "current.arrow")), filepath.ToSlash(dir)+"/")
	f, err := os.Create(filepath.Join(leaves[0], "current.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := tachometer.NewCaptureWriter(f, tachometer.EncodingArrowStream,
		[]tachometer.CaptureSeries{{Name: "gpu_util", Endpoint: "dcgm"}}, tachometer.CaptureOptions{StartNS: 1, NoTimestamp: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(tachometer.CaptureSample{Series: 0, TimeNS: 2e9, Value: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	res, err := Import(Options{Run: dir})
	if err != nil {
		t.Fatalf("a capture file without timestamp_ns must not fail the build: %v", err)
	}
	d := res.Dataset
	if !slices.Contains(d.Unread, rel) {
		t.Errorf("%s not listed as unread: %v", rel, d.Unread)
	}
	for _, s := range d.Sources {
		if s.Path == rel {
			t.Errorf("%s registered as a %s source", rel, s.Kind)
		}
	}
	if len(d.Metrics) == 0 {
		t.Error("the rest of the capture was not read")
	}
	why := 0
	for _, w := range d.Meta.Warnings {
		if strings.Contains(w, "current.arrow was not read") && strings.Contains(w, "cannot be aligned") {
			why++
		}
	}
	if why != 1 {
		t.Errorf("%d warnings say why current.arrow was not read: %q", why, d.Meta.Warnings)
	}
}
