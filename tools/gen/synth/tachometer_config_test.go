package synth

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/tachometer"
)

// TestTachometerConfigRestatesTheColumns reads the capture with and without
// the scraper configuration: every row records its own metadata, so the
// configuration names every endpoint yet changes no series.
func TestTachometerConfigRestatesTheColumns(t *testing.T) {
	for _, c := range []Config{
		{Seed: 1, Requests: 40, Sources: SourceTachometer},
		{Seed: 2, Requests: 40, Sources: DefaultSources | SourceTokenSpeed, Samples: 100_000},
	} {
		dir, _ := writeTestRun(t, c)
		endpoints, err := tachometer.ReadConfig(filepath.Join(dir, filepath.FromSlash(TachometerConfigPath())))
		if err != nil {
			t.Fatal(err)
		}
		capt, err := tachometer.Discover(filepath.Join(dir, "logs", tachometer.DefaultRoot), false)
		if err != nil {
			t.Fatal(err)
		}
		var bare, configured pointCounter
		if _, err := tachometer.Read(capt, tachometer.Options{}, &bare); err != nil {
			t.Fatal(err)
		}
		if _, err := tachometer.Read(capt, tachometer.Options{Endpoints: endpoints}, &configured); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(bare.series, configured.series) {
			t.Errorf("seed %d: the configuration changes series identities", c.Seed)
		}
		for _, s := range bare.series {
			ep, ok := endpoints[s.Endpoint]
			if !ok || ep.Hostname != s.Host {
				t.Fatalf("seed %d: endpoint %s (host %s) configured as %+v, %v", c.Seed, s.Endpoint, s.Host, ep, ok)
			}
		}
	}
}
