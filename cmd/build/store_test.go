package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/sqlstore"
	"github.com/dsight/dsight/tools/gen/synth"
	"github.com/dsight/dsight/web"
)

// storeRun builds a generated run with every source kind the store has a
// table for (client, frontend, OTel, workers, TRT-LLM iterations,
// Tachometer, Nsight) and returns the report directory.
func storeRun(t *testing.T, extra ...string) string {
	t.Helper()
	needAssets(t)
	src, err := synth.ParseSources("aiperf,frontend,otel,workers,sglang,tachometer,trtllm,nsight")
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(run, synth.Config{Seed: 5, Requests: 150, Sources: src, NsightRanges: 3000}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report")
	args := append([]string{"build", run, "-o", out, "--iteration-timezone", "UTC"}, extra...)
	if code, _, stderr := dsight(t, args...); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	return out
}

// sqlite3 runs the Debian sqlite3 command on the store, read-only.
func sqlite3(t *testing.T, db, sql string) string {
	t.Helper()
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("no sqlite3 command (Debian package sqlite3; make test installs it)")
	}
	out, err := exec.Command(bin, "-readonly", "-batch", db, sql).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 %q: %v\n%s", sql, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestStoreOpensWithSQLiteAndCountsMatchManifest(t *testing.T) {
	out := storeRun(t)
	db := filepath.Join(out, report.StoreFile)
	var m struct {
		report.Manifest
		Summary struct {
			Counts query.Counts `json:"counts"`
		} `json:"summary"`
	}
	raw, err := os.ReadFile(filepath.Join(out, report.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if got := sqlite3(t, db, "PRAGMA user_version"); got != strconv.Itoa(sqlstore.Version) {
		t.Errorf("user_version %s, want %d", got, sqlstore.Version)
	}
	if got := sqlite3(t, db, "PRAGMA integrity_check"); got != "ok" {
		t.Errorf("integrity_check: %s", got)
	}
	c := m.Summary.Counts
	for table, want := range map[string]int{
		"requests": c.Requests, "sessions": c.Sessions, "metric_series": c.Metrics,
		"profiles": c.Profiles, "iterations": c.Iterations, "sources": len(m.Sources),
	} {
		if got := sqlite3(t, db, "SELECT count(*) FROM "+table); got != strconv.Itoa(want) {
			t.Errorf("%s: %s rows, the manifest counts %d", table, got, want)
		}
	}
	if got := sqlite3(t, db, "SELECT count(DISTINCT worker) FROM request_workers"); got == "0" {
		t.Error("no request is bound to a worker")
	}
	// Every source kind the run has reached its table.
	for _, table := range []string{"server_spans", "lifecycle_stages", "worker_bindings", "metric_points", "nvtx_ranges", "cpu_samples", "warnings"} {
		if got := sqlite3(t, db, "SELECT count(*) FROM "+table); got == "0" {
			t.Errorf("%s is empty", table)
		}
	}
	// The metric rows are the summaries' exact rows: as many as the
	// catalog says each series holds.
	if got := sqlite3(t, db, "SELECT count(*) FROM metric_series s WHERE rows != (SELECT count(*) FROM metric_points p WHERE p.series = s.id)"); got != "0" {
		t.Errorf("%s series hold a different number of rows than the catalog says", got)
	}
	// NVTX ranges: as many as the profiles kept.
	if a, b := sqlite3(t, db, "SELECT sum(ranges) FROM profiles"), sqlite3(t, db, "SELECT count(*) FROM nvtx_ranges"); a != b {
		t.Errorf("profiles keep %s ranges, nvtx_ranges holds %s", a, b)
	}
	// Every range and sample names a thread of its profile.
	for _, table := range []string{"nvtx_ranges", "cpu_samples"} {
		q := "SELECT count(*) FROM " + table + " r LEFT JOIN nvtx_threads t ON t.profile = r.profile AND t.id = r.thread WHERE t.id IS NULL"
		if got := sqlite3(t, db, q); got != "0" {
			t.Errorf("%s: %s rows name no thread", table, got)
		}
	}
	if got := sqlite3(t, db, "SELECT count(*) FROM nvtx_threads WHERE pid != (global_tid >> 24) & 16777215 OR tid != global_tid & 16777215"); got != "0" {
		t.Errorf("%s threads' pid/tid disagree with their global id", got)
	}
	// The manifest lists the store among the report's files, and in no
	// shard: the page never loads it.
	// Its digest is the SHA-256 of the file as it stands.
	listed := false
	for _, f := range m.Files {
		if f.Path != report.StoreFile {
			continue
		}
		listed = true
		b, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); f.SHA256 != hex.EncodeToString(sum[:]) || f.Bytes != int64(len(b)) {
			t.Errorf("the manifest lists %s as %d bytes, %s; the file is %d bytes, %x", report.StoreFile, f.Bytes, f.SHA256, len(b), sum)
		}
	}
	if !listed {
		t.Errorf("the manifest does not list %s", report.StoreFile)
	}
	entry, _ := json.Marshal(m.Entry)
	index, err := os.ReadFile(filepath.Join(out, report.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(entry), "sqlite") || strings.Contains(string(index), report.StoreFile) {
		t.Error("the page's entry or index.html names the SQL store")
	}
}

func TestStoreQueriesUseIndexes(t *testing.T) {
	out := storeRun(t)
	db := filepath.Join(out, report.StoreFile)
	for name, c := range map[string]struct{ sql, want string }{
		"metric by time": {
			"EXPLAIN QUERY PLAN SELECT time, value FROM metric_points WHERE series = 3 AND time BETWEEN 10 AND 20",
			"SEARCH metric_points USING PRIMARY KEY (series=? AND time>? AND time<?)"},
		"nvtx by start": {
			"EXPLAIN QUERY PLAN SELECT start, \"end\", name FROM nvtx_ranges WHERE profile = 1 AND bucket = -10 AND start BETWEEN 1 AND 2",
			"SEARCH nvtx_ranges USING PRIMARY KEY (profile=? AND bucket=? AND start>? AND start<?)"},
		"requests by window": {
			"EXPLAIN QUERY PLAN SELECT start FROM requests WHERE start BETWEEN 5 AND 6",
			"USING COVERING INDEX requests_window (start>? AND start<?)"},
		"requests by worker": {
			"EXPLAIN QUERY PLAN SELECT request FROM request_workers WHERE worker = 'decode-0'",
			"SEARCH request_workers USING PRIMARY KEY (worker=?)"},
	} {
		if plan := sqlite3(t, db, c.sql); !strings.Contains(plan, c.want) {
			t.Errorf("%s: plan\n%s\nlacks %q", name, plan, c.want)
		}
	}
	// The overlap query docs/format/sqlite.md gives answers from the
	// primary key too, and finds the ranges the profile kept.
	const overlap = `SELECT count(*) FROM nvtx_durations d CROSS JOIN nvtx_ranges r
		ON r.profile = d.profile AND r.bucket = d.bucket AND r.start >= -1e9 - d.maximum AND r.start <= 1e9
		WHERE r."end" >= -1e9`
	if a, b := sqlite3(t, db, overlap), sqlite3(t, db, "SELECT count(*) FROM nvtx_ranges"); a != b {
		t.Errorf("the overlap query over the whole run finds %s ranges of %s", a, b)
	}
	if plan := sqlite3(t, db, "EXPLAIN QUERY PLAN "+overlap); !strings.Contains(plan, "SEARCH r USING PRIMARY KEY (profile=? AND bucket=? AND start>? AND start<?)") {
		t.Errorf("overlap plan:\n%s", plan)
	}
}

func TestNoSQLiteSkipsTheStore(t *testing.T) {
	out := storeRun(t, "--no-sqlite")
	if _, err := os.Stat(filepath.Join(out, report.StoreFile)); !os.IsNotExist(err) {
		t.Fatalf("--no-sqlite wrote %s (%v)", report.StoreFile, err)
	}
}

// A build that fails after its store was written (the sources changed
// under it), or while writing it, leaves the previous report and its
// store byte-identical and no stage behind.
func TestFailedBuildKeepsPreviousStore(t *testing.T) {
	needAssets(t)
	runDir := genRun(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	if code, _, stderr := dsight(t, "build", runDir, "-o", out); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	before := tree(t, out)
	if _, ok := before[report.StoreFile]; !ok {
		t.Fatal("the first build wrote no store")
	}
	res, err := importer.Import(importer.Options{Run: runDir, Phase: "profiling"})
	if err != nil {
		t.Fatal(err)
	}
	var wrote bool
	for name, opt := range map[string]report.Options{
		"verify fails": {Store: func(p string, d *model.Dataset) error { wrote = true; return sqlstore.WriteFile(p, d) },
			Verify: func() error { return errors.New("sources changed") }},
		"store fails": {Store: func(p string, d *model.Dataset) error {
			if err := os.WriteFile(p, []byte("half a store"), 0o644); err != nil {
				return err
			}
			return errors.New("disk full")
		}},
	} {
		if _, err := report.Write(res.Dataset, web.Assets(), out, opt); err == nil {
			t.Fatalf("%s: the write succeeded", name)
		}
		if after := tree(t, out); !reflect.DeepEqual(before, after) {
			t.Fatalf("%s: a failed rebuild changed the previous report", name)
		}
		entries, _ := os.ReadDir(parent)
		if len(entries) != 1 {
			t.Errorf("%s: %d entries beside the report, want none: %v", name, len(entries)-1, entries)
		}
	}
	if !wrote {
		t.Fatal("the store writer did not run")
	}
}
