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
	n, sum, err := hashStore(f)
	if err != nil {
		return nil, fmt.Errorf("stage report: %w", err)
	}
	return &FileEntry{Path: StoreFile, Bytes: n, SHA256: sum}, nil
}

// storeReadSize is how much of the store one read takes while it is
// hashed: io.Copy reads a file 32 KiB at a time, over 8,000 reads for a
// 277 MB Nsight store.
const storeReadSize = 1 << 20

// hashStore is the SHA-256 of everything r holds and its size. The hash
// has to read the finished file back: SQLite rewrites page 1 (and the bulk
// tables' root pages are written) after the pages that follow them, and a
// SHA-256 takes the file in order, so no part of it can be hashed before
// the whole is final.
func hashStore(r io.Reader) (int64, string, error) {
	h := sha256.New()
	// The reader is wrapped so that io.CopyBuffer uses the buffer rather
	// than a WriterTo's own 32 KiB one.
	n, err := io.CopyBuffer(h, struct{ io.Reader }{r}, make([]byte, storeReadSize))
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
