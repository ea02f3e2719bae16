package metrics

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// TestSpoolReadsBackWhatWasAdded adds payloads from several goroutines, as
// summaries are built one series per core, and reads each back.
func TestSpoolReadsBackWhatWasAdded(t *testing.T) {
	s, err := newSummarySpool()
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	blobs := make([]model.Blob, n)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				b, err := s.add(payloadOf(i))
				if err != nil {
					t.Error(err)
					return
				}
				blobs[i] = b
			}
		}()
	}
	wg.Wait()
	for i, b := range blobs {
		want := payloadOf(i)
		got, err := b.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if b.Len() != len(want) || !bytes.Equal(got, want) {
			t.Fatalf("payload %d: got %d bytes %.20q, want %d bytes %.20q", i, len(got), got, len(want), want)
		}
	}
}

func payloadOf(i int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("summary %d;", i)), i%37)
}

// TestSpoolIsInvisible: where an open file can be unlinked, the spool never
// shows in the temporary directory, so a killed build leaves nothing.
func TestSpoolIsInvisible(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be unlinked")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s, err := newSummarySpool()
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.add([]byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the spool is visible: %s", left[0].Name())
	}
	if got, err := b.Bytes(); err != nil || string(got) != "x" {
		t.Fatalf("read back %q, %v", got, err)
	}
}
