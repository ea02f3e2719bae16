package logmetric

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestGolden reads every testdata/*.log with the fake generator, in UTC, and
// compares the dump with its .golden sibling.
func TestGolden(t *testing.T) {
	logs, err := filepath.Glob("testdata/*.log")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range logs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			src := SourceInfo{Path: path, SourceID: 1, Worker: "decode-0", Host: "host", Role: "decode"}
			r, err := Read(bytes.NewReader(in), src, time.UTC, newFake())
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := r.Dump(&got); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, path[:len(path)-len(filepath.Ext(path))]+".golden", got.Bytes())
		})
	}
	goldens, _ := filepath.Glob("testdata/*.golden")
	for _, g := range goldens {
		if _, err := os.Stat(g[:len(g)-len(".golden")] + ".log"); err != nil {
			t.Errorf("%s has no fixture", g)
		}
	}
}

func compareGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update and review the diff): %s", golden, firstDiff(got, want))
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return "no line differs"
}
