package synth

import (
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/nsys"
)

func TestNsightExports(t *testing.T) {
	dir := t.TempDir()
	s, err := WriteRun(dir, Config{Seed: 5, Requests: 60, Sources: SourceAIPerf | SourceFrontend | SourceWorkers | SourceNsight, NsightRanges: 3000})
	if err != nil {
		t.Fatal(err)
	}
	var fronts, workers int
	for _, f := range s.Files {
		if f.Kind != KindNsight {
			continue
		}
		p, err := nsys.Read(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Path, nsys.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !p.Mapped || len(p.Ranges) == 0 || p.Ranges[0].GlobalTID < 1<<53 || len(p.Schema.Missing) != 0 {
			t.Errorf("%s: mapped %v, %d ranges, first tid %v, missing %q", f.Path, p.Mapped, len(p.Ranges), p.Ranges, p.Schema.Missing)
			continue
		}
		// Every range lies inside its capture, and only http.parse is left out.
		if p.Counts.InvalidOrBoundary != 0 || p.Counts.NullNames != 0 {
			t.Errorf("%s: counts %+v", f.Path, p.Counts)
		}
		if p.Worker == "frontend" {
			fronts++
			if p.CPU == nil || len(p.CPU.Samples) == 0 || p.Counts.Unselected*3 != p.Counts.Kept {
				t.Errorf("%s: cpu %v counts %+v", f.Path, p.CPU != nil, p.Counts)
			}
		} else {
			workers++
			if p.GPUs == nil || p.Rank != nil || p.Counts.Kept < 2990 || p.Counts.Kept > 3000 {
				t.Errorf("%s: gpus %v rank %v kept %d", f.Path, p.GPUs, p.Rank, p.Counts.Kept)
			}
		}
	}
	if fronts == 0 || workers == 0 {
		t.Errorf("%d frontend and %d worker exports", fronts, workers)
	}
}
