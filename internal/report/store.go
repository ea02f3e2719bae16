package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dsight/dsight/internal/model"
)

// StoreFile is the local SQL store a build may add to a report
// (internal/sqlstore). The page never reads it: it is listed among the
// manifest's files, so a rebuild may replace it, but in no shard list.
const StoreFile = "trace-data.sqlite"

// StoreWriter writes the store at path from the dataset the build holds
// (metric series still carry their summaries).
type StoreWriter func(path string, d *model.Dataset) error

// startStore runs the store writer inside the stage, so a failed build
// leaves the previous report's store as it was. It runs beside the rest of
// the render (it only reads d); the returned wait gives its file's entry,
// hashed as it is read back rather than held in memory, and may be called
// more than once.
func startStore(dir string, write StoreWriter, d *model.Dataset) (wait func() (*FileEntry, error)) {
	if write == nil {
		return func() (*FileEntry, error) { return nil, nil }
	}
	var entry *FileEntry
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		entry, err = writeStore(filepath.Join(dir, StoreFile), write, d)
	}()
	return func() (*FileEntry, error) {
		<-done
		return entry, err
	}
}

func writeStore(p string, write StoreWriter, d *model.Dataset) (*FileEntry, error) {
	if err := write(p, d); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("stage report: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, fmt.Errorf("stage report: %w", err)
	}
	return &FileEntry{Path: StoreFile, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}
