package report

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"runtime/debug"
	"sort"
	"testing"

	"github.com/dsight/dsight/internal/heappeak"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// heldStoredShard is how the report stored a shard before it streamed the
// compression: the whole gzip output first, then the choice.
func heldStoredShard(files *stageFiles, raw []byte) model.Shard {
	gz, err := shard.Compress(raw)
	if err != nil {
		panic(err)
	}
	if len(gz) < len(raw)-len(raw)/8 {
		return addCompressedShard(files, gz, len(raw))
	}
	sh := addCompressedShard(files, raw, len(raw))
	sh.Encoding = EncodingIdentity
	return sh
}

func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(seed, 2))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// addStoredShard compresses into the parts as shard.Compress would into a
// buffer: the same shard, parts and files for payloads gzip shrinks, cannot
// shrink, or shrinks only just too little (half random, half text), and
// nothing staged of a gzip attempt it did not keep.
func TestStoredShardStreamsCompressBytes(t *testing.T) {
	text := bytes.Repeat([]byte("compressible core rows, "), 200000) // ~4.6 MB: several gzip parts
	mixed := append(randomBytes(3*PartBytes, 3), bytes.Repeat([]byte("x"), PartBytes/3)...)
	for name, raw := range map[string][]byte{"text": text, "random": randomBytes(5*PartBytes/2, 1), "mixed": mixed, "empty": {}} {
		held := &stageFiles{mem: map[string][]byte{}}
		want := heldStoredShard(held, raw)
		streamed := &stageFiles{mem: map[string][]byte{}}
		got, err := addStoredShard(streamed, raw)
		if err != nil || streamed.err != nil {
			t.Fatal(name, err, streamed.err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: shard %+v, want %+v", name, got, want)
		}
		if !reflect.DeepEqual(streamed.mem, held.mem) || !reflect.DeepEqual(sortedEntries(streamed), sortedEntries(held)) {
			t.Errorf("%s: %d files staged, want %d", name, len(streamed.mem), len(held.mem))
		}
	}
}

func sortedEntries(f *stageFiles) []FileEntry {
	e := append([]FileEntry{}, f.entries...)
	sort.Slice(e, func(i, j int) bool { return e[i].Path < e[j].Path })
	return e
}

// Storing a payload gzip cannot shrink holds no compressed copy of it: the
// live heap grows by far less than the payload (the held way grew by more
// than all of it).
func TestStoredShardHoldsNoCompressedCopy(t *testing.T) {
	raw := randomBytes(32*PartBytes, 7) // many times what a part and its script hold
	files := &stageFiles{dir: t.TempDir()}
	// Collected often, the heap holds little garbage beside what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	peak := heappeak.During(func() {
		if _, err := addStoredShard(files, raw); err != nil || files.err != nil {
			t.Fatal(err, files.err)
		}
	})
	t.Logf("payload %d MB: live heap grew %.1f MB at most", len(raw)>>20, float64(peak)/(1<<20))
	if peak > uint64(len(raw)/4) {
		t.Fatalf("the live heap grew %d bytes storing a %d-byte payload", peak, len(raw))
	}
}
