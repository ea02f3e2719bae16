package tachometer

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// writeRowGroups writes a final.parquet of many small row groups.
func writeRowGroups(t *testing.T, enc Encoding) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "capture")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "final.parquet"
	if enc != EncodingParquet {
		name = "current.arrow"
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	series := []CaptureSeries{{Endpoint: "http://a:1/metrics", Name: "up"}, {Endpoint: "http://a:1/metrics", Name: "load"}}
	w, err := NewCaptureWriter(f, enc, series, CaptureOptions{StartNS: 1e18, BatchRows: 500})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20_000 {
		if err := w.Write(CaptureSample{Series: int32(i % 2), TimeNS: 1e18 + int64(i/2)*1e9, Value: float64(i % 17)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stopAfterSink fails once it has been handed more than after points.
type stopAfterSink struct{ after int }

var errStopAfter = errors.New("sink stops")

func (s *stopAfterSink) Series(*SeriesInfo) error { return nil }
func (s *stopAfterSink) Points(p []Point) error {
	if s.after -= len(p); s.after < 0 {
		return errStopAfter
	}
	return nil
}

// TestStoppedReadEndsDecoding stops reading midway through a file of many
// record batches: the error is the sink's and no decoding goroutine stays.
func TestStoppedReadEndsDecoding(t *testing.T) {
	for _, enc := range []Encoding{EncodingParquet, EncodingArrowFile, EncodingArrowStream} {
		dir := writeRowGroups(t, enc)
		before := runtime.NumGoroutine()
		c, err := Discover(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Read(c, Options{}, &stopAfterSink{after: 20_000}); err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		// The first points are handed over long before the file ends.
		if _, err := Read(c, Options{}, &stopAfterSink{after: 0}); !errors.Is(err, errStopAfter) {
			t.Fatalf("%s: error %v, want the sink's", enc, err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Fatalf("%s: %d goroutines after the read, %d before", enc, n, before)
		}
	}
}

// TestCorruptPagesAreThisFilesError damages the column data of a Parquet
// file: decoding must fail with an error naming the file, not crash.
func TestCorruptPagesAreThisFilesError(t *testing.T) {
	dir := writeRowGroups(t, EncodingParquet)
	path := filepath.Join(dir, "final.parquet")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, at := range []int{len(raw) / 5, len(raw) / 3, len(raw) / 2} {
		bad := append([]byte(nil), raw...)
		for i := at; i < at+64 && i < len(bad)-8; i++ {
			bad[i] ^= 0x5a
		}
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Discover(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Read(c, Options{}, &stopAfterSink{after: 1 << 30})
		if err != nil {
			failed++
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name %s", err, path)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no damaged file failed to read")
	}
}
