package importer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/tools/gen/synth"
)

func TestCollectorConfigIsASource(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 20, Timezone: "UTC", Sources: synth.SourceTachometer}); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "logs", tachometer.ConfigName)
	text := "[[endpoints]]\nname = \"frontend\"\n[endpoints.node_metadata]\nhostname = \"node-f\"\n"
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Import(Options{Run: dir, IterationTimezone: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	var kinds []string
	for _, s := range d.Sources {
		if s.Path == "logs/"+tachometer.ConfigName {
			kinds = append(kinds, s.Kind)
		}
	}
	if !slices.Equal(kinds, []string{"collector_config"}) || slices.Contains(d.Unread, "logs/"+tachometer.ConfigName) {
		t.Errorf("configuration registered as %v; unread %v", kinds, d.Unread)
	}

	if err := os.WriteFile(config, []byte(text+"hostname = \"again\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{Run: dir, IterationTimezone: time.UTC}); err == nil || !strings.Contains(err.Error(), tachometer.ConfigName+":5: invalid TOML") {
		t.Fatalf("malformed configuration: error %v", err)
	}
}
