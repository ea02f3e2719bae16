package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/tools/gen/synth"
	"github.com/dsight/dsight/web"
)

// needAssets skips when the page assets were not built; `make test` builds
// them before running the tests, so there they always run.
func needAssets(t *testing.T) {
	t.Helper()
	if _, err := fs.Stat(web.Assets(), report.AssetScript); err != nil {
		t.Skip("page assets not built; run `make assets` (make test does)")
	}
}

func genRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 11, Requests: 120, Hostile: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func dsight(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = hex.EncodeToString(sum[:])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBuildTwiceIsByteIdentical(t *testing.T) {
	needAssets(t)
	runDir := genRun(t)
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, out := range []string{a, b} {
		// With the timezone, so log-derived metric shards are compared too.
		if code, _, stderr := dsight(t, "build", runDir, "-o", out, "--iteration-timezone", "UTC"); code != 0 {
			t.Fatalf("build: %s", stderr)
		}
	}
	if ta, tb := tree(t, a), tree(t, b); !reflect.DeepEqual(ta, tb) {
		t.Fatalf("two builds of the same run differ:\n%v\n%v", ta, tb)
	}
}

func TestBadInputKeepsPreviousReport(t *testing.T) {
	needAssets(t)
	runDir := genRun(t)
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", runDir, "-o", out); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	before := tree(t, out)
	exports, _ := filepath.Glob(filepath.Join(runDir, "logs", "artifacts", "*", "profile_export.jsonl"))
	f, err := os.OpenFile(exports[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"metadata\": {truncated\n")
	f.Close()
	code, _, stderr := dsight(t, "build", runDir, "-o", out)
	if code != 1 {
		t.Fatalf("exit %d for a malformed export", code)
	}
	var e struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(stderr), &e); err != nil || e.OK {
		t.Fatalf("error output is not the JSON error record: %q", stderr)
	}
	if !strings.Contains(e.Error, "profile_export.jsonl:121:") {
		t.Fatalf("error does not name file:line: %s", e.Error)
	}
	if after := tree(t, out); !reflect.DeepEqual(before, after) {
		t.Fatal("a failed rebuild changed the previous report")
	}
}

func TestQuery(t *testing.T) {
	needAssets(t)
	runDir := genRun(t)
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", runDir, "-o", out); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	code, stdout, stderr := dsight(t, "query", out, "requests", "--from", "1", "--to", "300", "--limit", "3")
	if code != 0 {
		t.Fatal(stderr)
	}
	var page struct {
		Total int               `json:"total"`
		Limit int               `json:"limit"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(stdout), &page); err != nil || page.Limit != 3 || len(page.Items) != 3 || page.Total < 3 {
		t.Fatalf("requests page: %v %s", err, stdout)
	}
	for _, bad := range [][]string{
		{"query", out, "requests", "--limit", "1001"},
		{"query", out, "requests", "--from", "5", "--to", "5"},
		{"query", out, "request", "--request", "nope"},
		{"query", out, "nonsense"},
		{"query", filepath.Join(out, "missing")},
	} {
		if code, _, _ := dsight(t, bad...); code != 1 {
			t.Errorf("%v: exit %d, want 1", bad, code)
		}
	}
	for _, usage := range [][]string{{"query"}, {"build", runDir}, {"frobnicate"}} {
		if code, _, _ := dsight(t, usage...); code != 2 {
			t.Errorf("%v: exit %d, want 2", usage, code)
		}
	}
}

// TestProfilesAreWritten checks --cpuprofile and --memprofile leave gzipped
// pprof files (runtime/pprof writes gzip-compressed protobuf) beside a
// normal build.
func TestProfilesAreWritten(t *testing.T) {
	needAssets(t)
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "heap.pprof")
	if code, _, stderr := dsight(t, "build", genRun(t), "-o", filepath.Join(dir, "r"), "--cpuprofile", cpu, "--memprofile", mem); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 20 || b[0] != 0x1f || b[1] != 0x8b {
			t.Fatalf("%s is not a gzipped profile (%d bytes)", filepath.Base(p), len(b))
		}
	}
}

// The version names the report layout this build writes and reads.
func TestVersionNamesTheReportFormat(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if want := fmt.Sprintf("report format %d,", report.FormatVersion); !strings.Contains(out.String(), want) {
		t.Fatalf("version %q does not say %q", out.String(), want)
	}
}
