package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestPublishAndLinkCommands(t *testing.T) {
	needAssets(t)
	run := genRun(t)
	tmp := t.TempDir()
	rep, bucket := filepath.Join(tmp, "report"), filepath.Join(tmp, "bucket")
	if code, _, stderr := dsight(t, "build", run, "-o", rep); code != 0 {
		t.Fatal(stderr)
	}
	var first, second struct {
		ReportID string   `json:"report_id"`
		URL      string   `json:"url"`
		Written  []string `json:"written"`
		Existing int      `json:"existing"`
	}
	code, out, stderr := dsight(t, "publish", rep, "--to", bucket, "--base-url", "http://127.0.0.1:8787")
	if code != 0 || json.Unmarshal([]byte(out), &first) != nil {
		t.Fatalf("publish: %d %s %s", code, out, stderr)
	}
	if first.URL != "http://127.0.0.1:8787/r/"+first.ReportID+"/" || len(first.Written) < 3 {
		t.Fatalf("publish printed %s", out)
	}
	code, out, _ = dsight(t, "publish", rep, "--to", bucket)
	if code != 0 || json.Unmarshal([]byte(out), &second) != nil || len(second.Written) != 0 || second.Existing != len(first.Written) {
		t.Fatalf("re-publish: %d %s", code, out)
	}
	code, out, stderr = dsight(t, "link", rep, "--view", "#view=%7B%22range%22%3A%5B0%2C1%5D%7D", "--to", bucket, "--base-url", "http://127.0.0.1:8787/")
	var link struct{ ID, URL string }
	if code != 0 || json.Unmarshal([]byte(out), &link) != nil || link.URL != "http://127.0.0.1:8787/v/"+link.ID {
		t.Fatalf("link: %d %s %s", code, out, stderr)
	}
	if code, _, _ := dsight(t, "publish", rep); code != 2 {
		t.Errorf("publish without --to exited %d, want 2", code)
	}
	if code, _, stderr := dsight(t, "link", rep, "--view", "not a view", "--to", bucket); code != 1 || !strings.Contains(stderr, "#view=") {
		t.Errorf("a bad view exited %d: %s", code, stderr)
	}
}
