package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/shard"
)

// A part within one frame is checked by that frame's hash alone (it is
// not hashed a second time on its own, nor the whole payload again when
// every table is read), so damage to any byte of it must still be
// refused, naming the damaged file, by a reader of that table and by a
// reader of every table; a reader of the other tables does not read it.
func TestFramedShardNamesADamagedPartWithinAFrame(t *testing.T) {
	dir := t.TempDir()
	raw, files, _ := framedFixture(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, DetailDir), 0o755); err != nil {
		t.Fatal(err)
	}
	sh, err := addFramedShard(files, raw)
	if err != nil || files.err != nil {
		t.Fatal(err, files.err)
	}
	start := sh.Frames[0].Bytes + sh.Frames[1].Bytes
	at := 0
	damaged := ""
	for _, p := range sh.Parts {
		if at >= start && at+p.Bytes <= start+sh.Frames[2].Bytes {
			file := filepath.Join(dir, filepath.FromSlash(p.Path))
			_, payload, err := shard.OpenPart(mustRead(t, file))
			if err != nil {
				t.Fatal(err)
			}
			// The script keeps its id: only its payload is not that id's.
			payload[len(payload)/2] ^= 0x10
			if err := os.WriteFile(file, shard.Envelope16(p.ID, payload), 0o644); err != nil {
				t.Fatal(err)
			}
			damaged = p.ID + ".js"
			break
		}
		at += p.Bytes
	}
	if damaged == "" {
		t.Fatal("the requests frame has no part of its own")
	}
	for name, keep := range map[string]func(string) bool{
		"the requests table": func(table string) bool { return table == "requests" },
		"every table":        func(string) bool { return true },
	} {
		_, err := readFramedTables(dir, sh, keep)
		if err == nil || !strings.Contains(err.Error(), "content hash mismatch") || !strings.Contains(err.Error(), damaged) {
			t.Errorf("reading %s over a damaged part gave %v, want a content hash mismatch naming %s", name, err, damaged)
		}
	}
	if _, err := readShard(dir, sh); err == nil || !strings.Contains(err.Error(), "content hash mismatch") {
		t.Errorf("reading the whole payload over a damaged part gave %v", err)
	}
	if _, err := readFramedTables(dir, sh, func(table string) bool { return table != "requests" }); err != nil {
		t.Errorf("a reader of the other tables gave %v", err)
	}
}

// A shard read whole (readShard) hashes its parts' bytes once, as the
// whole payload: a part whose bytes were damaged in place (its script
// still naming its id) is refused, and the damaged file named.
func TestWholeShardNamesADamagedPart(t *testing.T) {
	dir := t.TempDir()
	raw, files, _ := framedFixture(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, DetailDir), 0o755); err != nil {
		t.Fatal(err)
	}
	sh, err := addStoredShard(files, raw)
	if err != nil || files.err != nil {
		t.Fatal(err, files.err)
	}
	if len(sh.Parts) < 1 {
		t.Fatal("no parts")
	}
	if _, err := readShard(dir, sh); err != nil {
		t.Fatal(err)
	}
	p := sh.Parts[len(sh.Parts)-1]
	file := filepath.Join(dir, filepath.FromSlash(p.Path))
	_, payload, err := shard.OpenPart(mustRead(t, file))
	if err != nil {
		t.Fatal(err)
	}
	payload[len(payload)/2] ^= 0x10
	if err := os.WriteFile(file, shard.Envelope16(p.ID, payload), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readShard(dir, sh); err == nil || !strings.Contains(err.Error(), "content hash mismatch") || !strings.Contains(err.Error(), p.ID+".js") {
		t.Errorf("a damaged part gave %v, want a content hash mismatch naming %s.js", err, p.ID)
	}
}
