package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dsight/dsight/internal/model"
)

func ptr[T any](v T) *T { return &v }

func assets(t testing.TB) fs.FS {
	tmpl, err := os.ReadFile("../../web/src/index.html")
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{
		AssetTemplate: {Data: tmpl},
		AssetScript:   {Data: []byte(`console.log("page")`)},
		AssetStyle:    {Data: []byte(`body{margin:0}`)},
		AssetEngine:   {Data: []byte("\x00asm fake engine")},
	}
}

func dataset(job string) *model.Dataset {
	return &model.Dataset{
		Meta:    model.Meta{Job: job, OriginNS: 1789642711000000000, DurationNS: 10e9, Phase: "profiling", SourceRoot: "/nonexistent/run"},
		Audit:   model.Audit{"client_requests": 2},
		Sources: []model.Source{{ID: 0, Path: "logs/profile_export.jsonl", Kind: "client", Bytes: 3, SHA256: "00"}},
		Requests: []model.Request{
			{ID: "<img src=x onerror=alert(1)>", Session: "s", Agent: "s", EndNS: 8e9, FirstNS: ptr(int64(3e9)), TTFTms: ptr(3000.0), Status: "completed", Evidence: model.Ref{Line: 1}},
			{ID: "r2", Session: "t", Agent: "t", StartNS: 9e9, EndNS: 10e9, Status: "cancelled", Evidence: model.Ref{Line: 2}},
		},
	}
}

// tree returns every file under dir with its SHA-256.
func tree(t testing.TB, dir string) map[string]string {
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

func TestWriteOpenRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	want := dataset("job")
	m, err := Write(want, assets(t), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	core, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := core.Dataset(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Open(Write(d)) differs:\n got %+v\nwant %+v", got, want)
	}
	// The manifest lists every file with its hash, and the files match.
	files := tree(t, dir)
	delete(files, ManifestFile)
	if len(m.Files) != len(files) {
		t.Fatalf("manifest lists %d files, directory has %d", len(m.Files), len(files))
	}
	for _, f := range m.Files {
		if files[filepath.FromSlash(f.Path)] != f.SHA256 {
			t.Errorf("%s: hash mismatch", f.Path)
		}
	}
	// Detail scripts are named by content and all belong to a shard.
	parts := map[string]bool{}
	for _, sh := range []model.Shard{m.Entry.Core, m.Entry.Engine} {
		for _, p := range sh.Parts {
			parts[p.Path] = true
			if p.Path != DetailDir+"/"+p.ID+".js" {
				t.Errorf("part %s is not named by its id %s", p.Path, p.ID)
			}
		}
	}
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, DetailDir+"/") && !parts[f.Path] {
			t.Errorf("unexpected detail file %s", f.Path)
		}
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o755 {
		t.Errorf("report directory mode %v, want 0755 so static hosts can serve it", st.Mode().Perm())
	}
}

func TestIndexEscapesInputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(dataset(`</script><img src=x onerror=alert(1)>`), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	if bytes.Contains(html, []byte("<img src=x")) || bytes.Count(bytes.ToLower(html), []byte("</script")) != 2 {
		t.Fatalf("input text reached the page as markup:\n%s", html)
	}
}

func TestDeterministic(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, dir := range []string{a, b} {
		if _, err := Write(dataset("job"), assets(t), dir, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if ta, tb := tree(t, a), tree(t, b); !reflect.DeepEqual(ta, tb) {
		t.Fatalf("two builds differ:\n%v\n%v", ta, tb)
	}
}

func TestRefusesForeignDirectories(t *testing.T) {
	root := t.TempDir()
	notReport := filepath.Join(root, "mine")
	os.MkdirAll(notReport, 0o755)
	os.WriteFile(filepath.Join(notReport, "notes.txt"), []byte("keep me"), 0o644)
	if _, err := Write(dataset("job"), assets(t), notReport, Options{}); err == nil || !strings.Contains(err.Error(), "not a dsight report") {
		t.Fatalf("wrote over a foreign directory: %v", err)
	}

	report := filepath.Join(root, "report")
	if _, err := Write(dataset("job"), assets(t), report, Options{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(report, "user-notes.md"), []byte("mine"), 0o644)
	if _, err := Write(dataset("job2"), assets(t), report, Options{}); err == nil || !strings.Contains(err.Error(), "did not generate") {
		t.Fatalf("rebuild removed a user file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(report, "user-notes.md")); string(b) != "mine" {
		t.Fatal("user file lost")
	}

	run := filepath.Join(root, "run")
	d := dataset("job")
	d.Meta.SourceRoot = run
	if _, err := Write(d, assets(t), root, Options{}); err == nil || !strings.Contains(err.Error(), "run directory") {
		t.Fatalf("output over the run's parent accepted: %v", err)
	}
}

func TestFailedBuildKeepsPreviousReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(dataset("first"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	_, err := Write(dataset("second"), assets(t), dir, Options{Verify: func() error { return os.ErrInvalid }})
	if err == nil {
		t.Fatal("verify failure ignored")
	}
	previousReportKept(t, dir, before)
}

// previousReportKept fails t unless the report at dir is still before
// (its tree as tree gave it) and no stage is left beside it.
func previousReportKept(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatal("a failed build changed the previous report")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".report.dsight-stage-*")); len(leftovers) != 0 {
		t.Fatalf("staging left behind: %v", leftovers)
	}
}

// TestKilledBuildKeepsPreviousReport kills a build process while its output is
// staged and checks that the previous report is byte-identical and that the
// next build cleans up after the dead one.
func TestKilledBuildKeepsPreviousReport(t *testing.T) {
	if dir := os.Getenv("DSIGHT_KILLED_BUILD_DIR"); dir != "" {
		Write(dataset("doomed"), assets(t), dir, Options{Verify: func() error {
			os.WriteFile(dir+".staged", nil, 0o644)
			time.Sleep(time.Minute) // killed here, with everything staged
			return nil
		}})
		return
	}
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(dataset("first"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledBuildKeepsPreviousReport$")
	cmd.Env = append(os.Environ(), "DSIGHT_KILLED_BUILD_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(dir + ".staged"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("child build never staged its output")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatal("a killed build changed the previous report")
	}
	stages, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".report.dsight-stage-*"))
	if len(stages) == 0 {
		t.Fatal("expected the killed build's stage to remain until the next build")
	}
	if _, err := Write(dataset("third"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	stages, _ = filepath.Glob(filepath.Join(filepath.Dir(dir), ".report.dsight-stage-*"))
	if len(stages) != 0 {
		t.Fatalf("abandoned stages not cleaned: %v", stages)
	}
	got, err := Open(dir)
	if err != nil || got.Meta.Job != "third" {
		t.Fatalf("rebuild after a killed build: %v", err)
	}
}

func TestKilledBetweenRenamesRestoresReport(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "report")
	if _, err := Write(dataset("first"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	// Simulate a build (of a process that no longer exists) killed after
	// moving the old report aside and before publishing the new one.
	aside := filepath.Join(root, stagePrefix(dir)+"999999999-x-previous")
	if err := os.Rename(dir, aside); err != nil {
		t.Fatal(err)
	}
	removeAbandonedStages(dir)
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatal("the previous report was not restored")
	}
}

func TestOpenRejects(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	m, err := Write(dataset("job"), assets(t), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.TempDir()); err == nil {
		t.Fatal("opened a directory without a manifest")
	}
	core := filepath.Join(dir, filepath.FromSlash(m.Entry.Core.Parts[0].Path))
	b, _ := os.ReadFile(core)
	b[len(b)/2] ^= 1
	os.WriteFile(core, b, 0o644)
	if _, err := Open(dir); err == nil {
		t.Fatal("opened a corrupted core shard")
	}
}

func TestManifestSorted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	m, err := Write(dataset("job"), assets(t), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, len(m.Files))
	for i, f := range m.Files {
		paths[i] = f.Path
	}
	if !sort.StringsAreSorted(paths) {
		t.Fatalf("manifest files unsorted: %v", paths)
	}
}

// A payload larger than PartBytes is split into parts that reassemble
// exactly; a missing or swapped part is an error, never a partial read.
func TestLargeShardParts(t *testing.T) {
	dir := t.TempDir()
	files := &stageFiles{dir: dir}
	raw := make([]byte, 5*PartBytes)
	for i := range raw {
		raw[i] = byte(i*7919>>3) ^ byte(i>>11) // poorly compressible
	}
	sh, err := addShard(files, raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(sh.Parts) < 2 {
		t.Fatalf("%d parts for %d payload bytes", len(sh.Parts), sh.Bytes)
	}
	if files.err != nil {
		t.Fatal(files.err)
	}
	got, err := readShard(dir, sh)
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("reassembly: %v", err)
	}
	swapped := sh
	swapped.Parts = append([]model.ShardPart{sh.Parts[1], sh.Parts[0]}, sh.Parts[2:]...)
	if _, err := readShard(dir, swapped); err == nil {
		t.Fatal("swapped parts accepted")
	}
	os.Remove(filepath.Join(dir, sh.Parts[1].Path))
	if _, err := readShard(dir, sh); err == nil {
		t.Fatal("missing part accepted")
	}
}

// A payload gzip cannot shrink is stored as is and reads back the same;
// one it can is stored gzipped.
func TestStoredShardEncoding(t *testing.T) {
	dir := t.TempDir()
	files := &stageFiles{dir: dir}
	random := make([]byte, 3*PartBytes/2)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	text := bytes.Repeat([]byte("compressible core rows "), 50000)
	for _, c := range []struct {
		raw  []byte
		want string
	}{{random, EncodingIdentity}, {text, ""}} {
		sh, err := addStoredShard(files, c.raw)
		if err != nil || files.err != nil {
			t.Fatal(err, files.err)
		}
		if sh.Encoding != c.want {
			t.Errorf("encoding %q, want %q", sh.Encoding, c.want)
		}
		got, err := readShard(dir, sh)
		if err != nil || !bytes.Equal(got, c.raw) {
			t.Fatalf("read back (%q): %v", sh.Encoding, err)
		}
	}
	odd := model.Shard{ID: "x", Encoding: "brotli"}
	if _, err := readShard(dir, odd); err == nil {
		t.Error("an unknown encoding was read")
	}
}

// TestOpenRefusesOtherFormatVersions checks a report of another layout
// version is refused with a message saying which way to go, not misread.
func TestOpenRefusesOtherFormatVersions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(dataset("job"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ManifestFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	current := fmt.Sprintf(`"format_version": %d`, FormatVersion)
	if !strings.Contains(string(raw), current) {
		t.Fatalf("manifest does not state %s", current)
	}
	for version, want := range map[int]string{FormatVersion - 1: "older than this dsight reads", FormatVersion + 1: "newer than this dsight reads"} {
		edited := strings.Replace(string(raw), current, fmt.Sprintf(`"format_version": %d`, version), 1)
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("format version %d: error %v, want one saying %q", version, err, want)
		}
	}
}
