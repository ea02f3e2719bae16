package tokenspeed

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/dsight/dsight/internal/fuzzlimit"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/golden"
	"github.com/dsight/dsight/internal/logmetric"
)

// snapshotRecord is a decoded snapshot as its golden shows it.
type snapshotRecord struct {
	Line  int    `json:"line"`
	Error string `json:"error,omitempty"`
	*Snapshot
	Resolution string `json:"time_resolution,omitempty"`
}

func dumpSnapshots(in []byte) []byte {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	for i, line := range bytes.Split(in, []byte("\n")) {
		s, ok, err := DecodeSnapshot(bytes.TrimSuffix(line, []byte("\r")))
		r := snapshotRecord{Line: i + 1}
		switch {
		case err != nil:
			r.Error = err.Error()
		case !ok:
			continue
		default:
			r.Snapshot = &s
			r.Resolution = time.Duration(s.Stamp.ResolutionNS()).String()
		}
		if err := enc.Encode(r); err != nil {
			panic(err)
		}
	}
	return out.Bytes()
}

// TestSnapshotGolden decodes every fixture's batch snapshots and compares
// them with testdata/snapshots/<fixture>.golden.
func TestSnapshotGolden(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "snapshots", filepath.Base(path)+".golden"), dumpSnapshots(in))
		})
	}
}

// TestSnapshotAgreesWithMetrics: the snapshot and the metric generator read
// one grammar, so every running count and page pair the metrics carry is
// the snapshot's, on the same line.
func TestSnapshotAgreesWithMetrics(t *testing.T) {
	n := 0
	for _, path := range fixtures(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(in, []byte("\n")) {
			obs, ok, err := Generator{}.Decode(line)
			if err != nil || !ok {
				continue
			}
			s, sok, serr := DecodeSnapshot(line)
			for _, v := range obs.Values {
				if v.Name == DecodeRequestLimit {
					continue
				}
				n++
				var got *int64
				switch v.Name {
				case ActiveDecodeRequests:
					got = s.Running
				case ActiveKVPages:
					got = s.PagesActive
				case KVPoolPages:
					got = s.PagesTotal
				}
				if !sok || serr != nil || got == nil || float64(*got) != v.Number || s.Stamp != obs.Time || s.Rank != obs.Rank.Index {
					t.Errorf("%s:%d: metric %s=%v, snapshot %+v (%v, %v)", path, i+1, v.Name, v.Number, s, sok, serr)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no metric values compared")
	}
}

// FuzzDecodeSnapshot: never panics or hangs (per-input limit), fails only
// on impossible timestamps, and returns non-negative counts.
func FuzzDecodeSnapshot(f *testing.F) {
	for _, path := range fixtures(f) {
		in, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(in, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		defer fuzzlimit.Start(t)()
		type answer struct {
			s   Snapshot
			ok  bool
			err error
		}
		var a answer
		a.s, a.ok, a.err = DecodeSnapshot(line)
		if a.err != nil {
			if a.ok || !errors.Is(a.err, logmetric.ErrInvalidStamp) {
				t.Fatalf("unexpected %v", a.err)
			}
			return
		}
		if !a.ok {
			return
		}
		if a.s.Rank < 0 || a.s.Stamp.Validate() != nil {
			t.Fatalf("bad snapshot %+v", a.s)
		}
		for _, p := range []*int64{a.s.Running, a.s.Queued, a.s.NewSeq, a.s.NewToken, a.s.CachedToken, a.s.PagesActive, a.s.PagesCached, a.s.PagesTotal} {
			if p != nil && *p < 0 {
				t.Fatalf("negative count in %+v", a.s)
			}
		}
	})
}
