package sqlstore

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// The window gives the bytes a read asks for wherever they lie: within
// it, behind it, across its end, past the file's end (an error), and once
// it has read the file twice over, straight from the file.
func TestSpillWindowReadsWhatIsAsked(t *testing.T) {
	data := make([]byte, 3*spillWindowSize+12345)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	p := filepath.Join(t.TempDir(), "spill")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := spillWindow{f: f, limit: 2 * int64(len(data))}
	reads := [][2]int{{0, 100}, {50, 10}, {spillWindowSize - 10, 40}, {spillWindowSize / 2, 7}, {len(data) - 5, 5},
		{10, spillWindowSize}, {len(data) - spillWindowSize/4, spillWindowSize / 4}}
	for i := 0; i < 400; i++ {
		off := rng.IntN(len(data) - 2000)
		reads = append(reads, [2]int{off, 1 + rng.IntN(2000)})
	}
	for _, r := range reads {
		b := make([]byte, r[1])
		if err := w.readAt(b, int64(r[0])); err != nil {
			t.Fatalf("read %d bytes at %d: %v", r[1], r[0], err)
		}
		if !bytes.Equal(b, data[r[0]:r[0]+r[1]]) {
			t.Fatalf("read %d bytes at %d: not the file's", r[1], r[0])
		}
	}
	if w.read > w.limit+spillWindowSize {
		t.Fatalf("random reads took %d bytes into the window for a %d-byte file", w.read, len(data))
	}
	if err := w.readAt(make([]byte, 10), int64(len(data)-5)); err == nil {
		t.Fatal("a read past the end gave no error")
	}
}
