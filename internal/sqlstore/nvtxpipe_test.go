package sqlstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// A bad row many batches into the NVTX table, in the first or a later
// profile, still fails the write with its profile named and no file left:
// neither half of the hand-over waits on the other once one has stopped.
func TestNVTXHandOverStopsOnABadRow(t *testing.T) {
	for _, second := range []bool{false, true} {
		d := nvtxDataset(pipeBatchRows*(pipeBatches+3), 4)
		bad := &d.Profiles[0]
		if second {
			p := d.Profiles[0]
			p.ID, p.File = 1, "q.sqlite"
			p.Ranges = append([]model.NVTXRange(nil), p.Ranges...)
			d.Profiles = append(d.Profiles, p)
			bad = &d.Profiles[1]
		}
		last := bad.Ranges[len(bad.Ranges)-1]
		bad.Ranges = append(bad.Ranges, last) // a repeated key, the last row
		path := filepath.Join(t.TempDir(), "s.sqlite")
		_, err := Write(path, d)
		if err == nil || !strings.Contains(err.Error(), "profile "+bad.File+": ") || !strings.Contains(err.Error(), "repeated key") {
			t.Fatalf("second profile %v: the write's error is %v", second, err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("second profile %v: the failed write left %s (%v)", second, path, err)
		}
	}
}
