package main

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/shard"
)

// readManifest reads the manifest of the report at dir.
func readManifest(t *testing.T, dir string) report.Manifest {
	t.Helper()
	mb, err := os.ReadFile(filepath.Join(dir, report.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m report.Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// tamperFrame copies the report at src and changes one stored byte of
// the frame of table in the copy, rewriting the part that holds it under
// its new hash and naming that part in the manifest: every part checks,
// only the frame's own hash (and the whole payload's) tells.
func tamperFrame(t *testing.T, src, table string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "report")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(dir, report.ManifestFile)
	mb, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	var m report.Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	core := &m.Entry.Core
	if core.Encoding != report.EncodingFrames {
		t.Fatalf("the core is stored %q, not framed", core.Encoding)
	}
	at := -1
	for i, f := range core.Frames {
		if f.Table == table {
			at += 1 + f.Bytes/2
			break
		}
		if i == len(core.Frames)-1 {
			t.Fatalf("no frame of table %q", table)
		}
		at += f.Bytes
	}
	for i, p := range core.Parts {
		if at >= p.Bytes {
			at -= p.Bytes
			continue
		}
		script, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.Path)))
		if err != nil {
			t.Fatal(err)
		}
		_, payload, err := shard.OpenPart(script)
		if err != nil {
			t.Fatal(err)
		}
		payload[at] ^= 0x20
		id := shard.ID(payload)
		p.ID, p.Path = id, path.Join(report.DetailDir, id+".js")
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p.Path)), shard.Envelope16(id, payload), 0o644); err != nil {
			t.Fatal(err)
		}
		core.Parts[i] = p
		break
	}
	if mb, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mpath, mb, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// With the core framed, a question reads and checks only the frames of the
// tables it decodes: over a copy whose requests (or metric_series) frame
// is damaged, every question that skips that table answers byte for byte
// as over the intact report, and every question that reads it is refused
// with the content hash error, whichever way the report is opened.
func TestQueryChecksOnlyTheFramesItReads(t *testing.T) {
	dir, _ := goldenDir(t)
	id := firstLifecycleRequest(t, dir)
	questions := append([][]string{}, tableQuestions...)
	for _, q := range goldenQueries {
		questions = append(questions, q.argv)
	}
	for _, table := range []string{"requests", "metric_series"} {
		damaged := tamperFrame(t, dir, table)
		if _, err := report.Open(damaged); err == nil || !strings.Contains(err.Error(), "content hash mismatch") {
			t.Errorf("%s damaged: opening the whole core gave %v, want a content hash mismatch", table, err)
		}
		answered, refused := 0, 0
		for _, argv := range questions {
			argv = append([]string{}, argv...)
			for i := range argv {
				if argv[i] == "REQ" {
					argv[i] = id
				}
			}
			_, req, err := queryRequest(append([]string{dir}, argv...), nil)
			if err != nil {
				t.Fatalf("%v: %v", argv, err)
			}
			skipped := query.SkippedTables(req.Op, req.named())
			if skipped != nil && skipped(table) {
				want, _ := askWith(t, dir, argv, true)
				got, _ := askWith(t, damaged, argv, true)
				if got != want {
					t.Errorf("%s damaged, %v skips it but answers\n%s\nwant\n%s", table, argv, got, want)
				}
				answered++
				continue
			}
			_, err = report.OpenLazyTables(damaged, skipped)
			if err == nil || !strings.Contains(err.Error(), "content hash mismatch") {
				t.Errorf("%s damaged, %v reads it but opened with %v", table, argv, err)
			}
			refused++
		}
		if answered < 5 || refused < 5 {
			t.Errorf("%s damaged: %d questions skipped it, %d read it: the test asks too little", table, answered, refused)
		}
	}
}
