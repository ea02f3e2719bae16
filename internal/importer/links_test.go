package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/tools/gen/synth"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
}

func kindCounts(d *model.Dataset) map[string]int {
	kinds := map[string]int{}
	for _, s := range d.Sources {
		kinds[s.Kind]++
	}
	return kinds
}

func linkAt(d *model.Dataset, path string) *model.Link {
	for i := range d.Links {
		if d.Links[i].Path == path {
			return &d.Links[i]
		}
	}
	return nil
}

func hasWarning(d *model.Dataset, parts ...string) bool {
	for _, w := range d.Meta.Warnings {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// A logs/ directory on shared storage, reached through a link, is read
// whole: its frontend and worker logs, its OTel export and its client
// export, as when it lies in the run; the link is recorded, and said to
// leave the run.
func TestSymlinkedLogDirectoryIsRead(t *testing.T) {
	direct, err := Import(Options{Run: writeRun(t)})
	if err != nil {
		t.Fatal(err)
	}
	shared := writeRun(t) // its logs/ stands for the shared storage
	run := filepath.Join(t.TempDir(), "run")
	symlink(t, filepath.Join(shared, "logs"), filepath.Join(run, "logs"))
	res, err := Import(Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	want, got := kindCounts(direct.Dataset), kindCounts(d)
	if len(got) != len(want) || got["worker_log"] != want["worker_log"] || got["frontend_log"] != want["frontend_log"] {
		t.Fatalf("through the link: sources %v, want %v", got, want)
	}
	if d.Requests[0].Server == nil || strings.Join(d.Requests[0].Server.Workers, ",") != "decode-0,prefill-0" {
		t.Fatalf("joined request lost its workers: %+v", d.Requests[0].Server)
	}
	l := linkAt(d, "logs")
	if l == nil || !l.Outside || l.Target != filepath.ToSlash(filepath.Join(mustReal(t, shared), "logs")) {
		t.Fatalf("link record %+v in %+v", l, d.Links)
	}
	if d.Audit["symlinks_outside_run"] != 1 || !hasWarning(d, "point outside it", "logs → ") {
		t.Fatalf("audit %v, warnings %q", d.Audit, d.Meta.Warnings)
	}
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Worker logs and a frontend log reached through links inside the run are
// read; a second link to a directory read already is not walked twice; a
// dangling link and a loop are unread with the reason.
func TestSymlinksInsideTheRun(t *testing.T) {
	run := writeRun(t)
	logs := filepath.Join(run, "logs")
	// Move the logs into a subdirectory reached through a link.
	store := filepath.Join(run, "store")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"decode-host_decode_w0.out", "prefill-host_prefill_w0.out"} {
		if err := os.Rename(filepath.Join(logs, name), filepath.Join(store, name)); err != nil {
			t.Fatal(err)
		}
	}
	symlink(t, "../store", filepath.Join(logs, "workers"))
	symlink(t, "workers", filepath.Join(logs, "wsecond"))
	symlink(t, "missing.out", filepath.Join(logs, "gone_frontend_1.out"))
	symlink(t, "..", filepath.Join(logs, "workers-loop"))
	res, err := Import(Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if k := kindCounts(d); k["worker_log"] != 2 || k["frontend_log"] != 1 {
		t.Fatalf("sources %v", k)
	}
	if l := linkAt(d, "logs/workers"); l == nil || l.Outside || l.Target != "store" || l.Unread != "" {
		t.Fatalf("logs/workers: %+v", l)
	}
	if l := linkAt(d, "logs/wsecond"); l == nil || l.Target != "store" || l.Unread != "same directory as logs/workers, read there" {
		t.Fatalf("duplicate link: %+v", l)
	}
	if l := linkAt(d, "logs/gone_frontend_1.out"); l == nil || !strings.HasPrefix(l.Unread, "dangling") {
		t.Fatalf("dangling link: %+v", l)
	}
	if l := linkAt(d, "logs/workers-loop"); l == nil || !strings.HasPrefix(l.Unread, "loop") {
		t.Fatalf("loop: %+v", l)
	}
	unread := strings.Join(d.Unread, ",")
	if !strings.Contains(unread, "logs/gone_frontend_1.out") || !strings.Contains(unread, "logs/workers-loop") || strings.Contains(unread, "wsecond") {
		t.Fatalf("unread %v", d.Unread)
	}
	if d.Audit["symlinks_unread"] != 2 || d.Audit["symlinks_outside_run"] != 0 || !hasWarning(d, "could not be followed", "dangling") {
		t.Fatalf("audit %v, warnings %q", d.Audit, d.Meta.Warnings)
	}
}

// A symlinked final.parquet is the capture's final file (it used to be
// skipped, with the false warning that the capture had none).
func TestSymlinkedCaptureFileIsRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 50, Timezone: "UTC", Sources: synth.SourceTachometer}); err != nil {
		t.Fatal(err)
	}
	direct, err := Import(Options{Run: dir, IterationTimezone: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	var final string
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.Name() == "final.parquet" {
			final = p
		}
		return err
	})
	if final == "" {
		t.Skip("the generated capture has no final.parquet")
	}
	elsewhere := filepath.Join(t.TempDir(), "final.parquet")
	if err := os.Rename(final, elsewhere); err != nil {
		t.Fatal(err)
	}
	symlink(t, elsewhere, final)
	res, err := Import(Options{Run: dir, IterationTimezone: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dataset.Metrics) != len(direct.Dataset.Metrics) || hasWarning(res.Dataset, "no final.parquet") {
		t.Fatalf("%d series (want %d), warnings %q", len(res.Dataset.Metrics), len(direct.Dataset.Metrics), res.Dataset.Meta.Warnings)
	}
}
