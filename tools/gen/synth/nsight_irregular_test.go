package synth

import (
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/nsys"
)

// TestNsightIrregularExports checks the irregular worker exports hold
// what a real profile does and the regular ones lack: uneven durations,
// many distinct names, several threads, ranges outside every category,
// rows out of start order, and exactly -nsight-ranges rows.
func TestNsightIrregularExports(t *testing.T) {
	dir := t.TempDir()
	const rows = 40_000
	s, err := WriteRun(dir, Config{Seed: 5, Requests: 60, Sources: SourceAIPerf | SourceFrontend | SourceWorkers | SourceNsight, NsightRanges: rows, NsightIrregular: true})
	if err != nil {
		t.Fatal(err)
	}
	workers := 0
	for _, f := range s.Files {
		if f.Kind != KindNsight {
			continue
		}
		p, err := nsys.Read(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Path, nsys.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Worker == "frontend" {
			continue
		}
		workers++
		c := p.Counts
		if c.Rows != rows || c.InvalidOrBoundary != 0 || c.NullNames != 0 || c.Unselected == 0 || c.Kept != c.Selected {
			t.Errorf("%s: counts %+v", f.Path, c)
		}
		if len(p.Names) < 500 || len(p.Threads) < 3 {
			t.Errorf("%s: %d names, %d threads", f.Path, len(p.Names), len(p.Threads))
		}
		durs := map[int64]bool{}
		outOfOrder := false
		for k, x := range p.Ranges {
			durs[x.EndNS-x.StartNS] = true
			if k > 0 && x.RowID < p.Ranges[k-1].RowID {
				outOfOrder = true
			}
		}
		if len(durs) < len(p.Ranges)/2 || !outOfOrder {
			t.Errorf("%s: %d distinct durations of %d ranges, rows out of start order %v", f.Path, len(durs), len(p.Ranges), outOfOrder)
		}
	}
	if workers == 0 {
		t.Fatal("no worker export")
	}
}
