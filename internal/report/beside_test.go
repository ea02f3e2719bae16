package report

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The engine compressed beside the metric shards is the shard addShard
// stages, with the same files.
func TestCompressBesideMatchesAddShard(t *testing.T) {
	raw := bytes.Repeat([]byte("engine bytes that compress; "), 3*PartBytes/20)
	want := &stageFiles{mem: map[string][]byte{}}
	sh, err := addShard(want, raw)
	if err != nil {
		t.Fatal(err)
	}
	got := &stageFiles{mem: map[string][]byte{}}
	gotSh, err := compressBeside(raw).add(got)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotSh, sh) || !reflect.DeepEqual(got.mem, want.mem) || !reflect.DeepEqual(got.entries, want.entries) {
		t.Fatal("the shard compressed beside differs from addShard's")
	}
}

// A file whose directory the stage does not have yet is written with its
// directories; one that cannot be written is an error naming it.
func TestStageWriteMakesMissingDirectories(t *testing.T) {
	dir := t.TempDir()
	files := &stageFiles{dir: dir}
	files.put("detail/deeper/x.js", []byte("x"))
	files.put("detail/y.js", []byte("y"))
	if files.err != nil {
		t.Fatal(files.err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "detail", "deeper", "x.js")); err != nil || string(b) != "x" {
		t.Fatalf("nested file: %q, %v", b, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "blocker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := files.write("blocker/z.js", []byte("z")); err == nil || !bytes.Contains([]byte(err.Error()), []byte("blocker")) {
		t.Fatalf("a file under a regular file: %v", err)
	}
}
