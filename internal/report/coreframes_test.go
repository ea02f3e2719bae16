package report

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/shard"
)

// framedFixture is a shard of a big table (random integers, which gzip
// cannot shrink) between small ones, staged framed into dir.
func framedFixture(t *testing.T, dir string) ([]byte, *stageFiles, []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	big := make([]int64, 60000)
	for i := range big {
		big[i] = r.Int64()
	}
	small := func(name string) shard.Table {
		return shard.Table{Name: name, Rows: 3, Columns: []shard.Column{{Name: "v", Type: shard.String, Strings: []string{"a", "b", "a"}}}}
	}
	s := &shard.Shard{Kind: "core", Tables: []shard.Table{small("meta"),
		{Name: "requests", Rows: len(big), Columns: []shard.Column{{Name: "x", Type: shard.Int64, Ints: big}}},
		small("metric_series")}}
	raw, err := shard.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	files := &stageFiles{dir: dir}
	return raw, files, []string{"meta", "requests", "metric_series"}
}

// The framed core joins back into the raw shard byte for byte; a big frame
// sits on parts of its own, so a reader of the other tables reads none of
// them, and one of its tables reads them and checks them.
func TestFramedShardReadsOnlyItsFramesParts(t *testing.T) {
	dir := t.TempDir()
	raw, files, tables := framedFixture(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, DetailDir), 0o755); err != nil {
		t.Fatal(err)
	}
	sh, err := addFramedShard(files, raw)
	if err != nil || files.err != nil {
		t.Fatal(err, files.err)
	}
	if sh.Encoding != EncodingFrames || len(sh.Frames) != len(tables)+2 {
		t.Fatalf("descriptor %q with %d frames", sh.Encoding, len(sh.Frames))
	}
	if f := sh.Frames[2]; f.Table != "requests" || f.Encoding != EncodingIdentity {
		t.Fatalf("frame 2 is %+v, want the requests table stored as is", f)
	}
	whole, err := readShard(dir, sh)
	if err != nil || !bytes.Equal(whole, raw) {
		t.Fatalf("the frames join into %d bytes (%v), want the %d raw", len(whole), err, len(raw))
	}
	// The parts of the requests frame hold nothing else: remove them.
	start := sh.Frames[0].Bytes + sh.Frames[1].Bytes
	at, removed := 0, 0
	for _, p := range sh.Parts {
		if at >= start && at+p.Bytes <= start+sh.Frames[2].Bytes {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p.Path))); err != nil {
				t.Fatal(err)
			}
			removed++
		} else if at < start+sh.Frames[2].Bytes && at+p.Bytes > start {
			t.Fatalf("part at %d of %d bytes holds the requests frame and another", at, p.Bytes)
		}
		at += p.Bytes
	}
	if removed == 0 {
		t.Fatal("the requests frame has no part of its own")
	}
	some, err := readFramedTables(dir, sh, func(table string) bool { return table != "requests" })
	if err != nil {
		t.Fatal(err)
	}
	if len(some.Tables) != 2 || some.Tables[0].Name != "meta" || some.Tables[1].Name != "metric_series" || some.Kind != "core" {
		t.Fatalf("decoded %+v", some)
	}
	if _, err := readFramedTables(dir, sh, func(table string) bool { return table == "requests" }); err == nil {
		t.Fatal("the requests table decoded without its parts")
	}
}

// A frame that does not match its hash is refused by a reader of its
// table, with the usual content hash message.
func TestFramedShardRefusesADamagedFrame(t *testing.T) {
	raw, _, _ := framedFixture(t, "")
	files := &stageFiles{mem: map[string][]byte{}}
	sh, err := addFramedShard(files, raw)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := readShard(t.TempDir(), sh)
	if err == nil || payload != nil {
		t.Fatal("read parts that are not on disk")
	}
	var joined []byte
	for _, p := range sh.Parts {
		_, b, err := shard.OpenPart(files.mem[p.Path])
		if err != nil {
			t.Fatal(err)
		}
		joined = append(joined, b...)
	}
	joined[sh.Frames[0].Bytes+sh.Frames[1].Bytes+5] ^= 1
	if _, err := joinFrames(sh, joined); err == nil || !strings.Contains(err.Error(), `content hash mismatch: the frame of table "requests"`) {
		t.Fatalf("a damaged frame gave %v", err)
	}
	bad := sh
	bad.Frames = append(bad.Frames[:0:0], sh.Frames...)
	bad.Frames[1].Bytes++
	if _, err := checkFrames(bad); err == nil {
		t.Fatal("frames that do not add up were accepted")
	}
}
