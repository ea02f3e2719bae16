package tachometer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A text file named final.parquet is named as not Parquet, not read as a
// "truncated Arrow IPC stream".
func TestTextNamedParquetSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "final.parquet")
	if err := os.WriteFile(path, []byte("timestamp_ns,value\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := openSource(path)
	if err == nil || !strings.Contains(err.Error(), "not a Parquet file") {
		t.Fatalf("openSource: %v", err)
	}
}
