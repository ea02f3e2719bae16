package nsys

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/nsys/nsystest"
)

// FuzzSQLiteFile feeds arbitrary bytes to the file-format reader: it
// returns rows or an error, never panics, and finishes within the per-input
// limit (cycles and deep trees end the scan). Whole reads through it and
// through the driver alone agree.
func FuzzSQLiteFile(f *testing.F) {
	seed := filepath.Join(f.TempDir(), "seed.sqlite")
	e := base()
	for k := range 300 {
		s := int64(1_100_000_000 + k*1000)
		e.Ranges = append(e.Ranges, nsystest.Range{Start: s, End: nsystest.End(s + 500), Name: "scheduler.run_batch", Inline: k%2 == 0, GlobalTID: int64(k)})
	}
	if err := nsystest.Write(seed, e); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, uint32(0))
	f.Add(b[:len(b)/2], uint32(2))
	f.Add([]byte("SQLite format 3\x00"), uint32(1))
	f.Fuzz(func(t *testing.T, data []byte, root uint32) {
		defer fuzzlimit.Start(t)()
		if s, err := openSQLiteFile(bytesReaderAt(data), int64(len(data))); err == nil && root != 0 {
			cols := map[string]int{"start": 0, "end": 1, "text": 6, "textId": 9, "globalTid": 7}
			_, _ = scanNVTX(s, root, [2]int64{0, 1 << 62}, map[int64]string{1: "graph_replay"}, cols)
		}
		path := filepath.Join(t.TempDir(), "in.sqlite")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		name := "h_decode_w0_profile_gpu0-1.sqlite"
		fast, _, ferr := readProfile(path, name, Options{MaxEvents: 1000}, true)
		slow, _, serr := readProfile(path, name, Options{MaxEvents: 1000}, false)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("file reader error %v, driver error %v", ferr, serr)
		}
		if ferr == nil && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("the file reader and the driver disagree")
		}
	})
}
