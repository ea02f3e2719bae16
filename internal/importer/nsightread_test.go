package importer

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/nsys/nsystest"
)

// nsightExports writes n worker exports of different sizes and returns
// their paths, sorted.
func nsightExports(t *testing.T, dir string, n int) []string {
	t.Helper()
	const clock = int64(2_000_000_000)
	var paths []string
	for i := range n {
		e := nsystest.Export{EpochNS: 1_790_000_000_000_000_000 + int64(i)*1_000_000, SystemClockNS: clock, StartTime: clock, StopTime: clock + 4_000_000_000}
		for k := range 500 * (i + 1) {
			s := int64(k) * 1_000_000
			e.Ranges = append(e.Ranges, nsystest.Range{Start: s, End: nsystest.End(s + 500_000 + int64(i)), Name: "scheduler.run_batch", GlobalTID: int64(i+1)<<24 | 7})
		}
		p := filepath.Join(dir, fmt.Sprintf("h%d_decode_w%d_profile_gpu0-1.sqlite", i, i))
		if err := nsystest.Write(p, e); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func nsightBuild(dir string) *build {
	d := &model.Dataset{Audit: map[string]int64{}}
	b := &build{root: dir, open: openOS, registered: map[string]int{}, held: map[string]*held{}}
	b.d, b.res = d, &Result{Dataset: d}
	return b
}

// TestReadNsightFilesInParallelAsOneAfterAnother checks the exports read
// at once give the profiles, source ids and file hashes that reading them
// one after another gives, in path order, whatever the worker count and
// budget.
func TestReadNsightFilesInParallelAsOneAfterAnother(t *testing.T) {
	dir := t.TempDir()
	paths := nsightExports(t, dir, 5)
	type got struct {
		profiles []model.Profile
		sources  []model.Source
	}
	read := func(workers int, budget int64) got {
		b := nsightBuild(dir)
		reads, err := readNsightFiles(b, paths, workers, budget)
		if err != nil {
			t.Fatal(err)
		}
		var g got
		for _, r := range reads {
			if err := b.finishSource(r.src); err != nil {
				t.Fatal(err)
			}
			r.src.close()
			g.profiles = append(g.profiles, *r.p)
		}
		g.sources = b.d.Sources
		return g
	}
	serial := read(1, 1)
	for k, s := range serial.sources {
		raw, err := os.ReadFile(paths[k])
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != k || s.Path != filepath.Base(paths[k]) || s.SHA256 != fmt.Sprintf("%x", sha256.Sum256(raw)) {
			t.Fatalf("source %d: %+v", k, s)
		}
		if serial.profiles[k].File != s.Path || len(serial.profiles[k].Ranges) != 500*(k+1) {
			t.Fatalf("profile %d: %s with %d ranges", k, serial.profiles[k].File, len(serial.profiles[k].Ranges))
		}
	}
	for _, c := range []struct {
		workers int
		budget  int64
	}{{2, 1 << 30}, {4, 1 << 30}, {8, 1}, {3, 200_000}} {
		if g := read(c.workers, c.budget); !reflect.DeepEqual(g, serial) {
			t.Fatalf("%d workers, budget %d: the profiles or sources differ from a serial read", c.workers, c.budget)
		}
	}
}

// TestReadNsightFilesReportsTheFirstFailure checks that when several
// exports fail, the error names the first in path order, as a serial
// read reports it, however the reads overlap.
func TestReadNsightFilesReportsTheFirstFailure(t *testing.T) {
	dir := t.TempDir()
	paths := nsightExports(t, dir, 4)
	for _, k := range []int{1, 3} {
		if err := os.WriteFile(paths[k], bytes.Repeat([]byte("not sqlite "), 100), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, workers := range []int{1, 2, 4} {
		_, err := readNsightFiles(nsightBuild(dir), paths, workers, 1<<30)
		if err == nil || !strings.Contains(err.Error(), filepath.Base(paths[1])) {
			t.Fatalf("%d workers: error %v, want one naming %s", workers, err, filepath.Base(paths[1]))
		}
	}
}
