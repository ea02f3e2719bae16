package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Reports are files people receive from others, so nothing a manifest or a
// core names is trusted: every part path must be a plain file directly in
// the report's detail/ directory, named by its part id, and every read is
// bounded by the size the manifest declares for it.

// maxManifestBytes bounds manifest.json. A manifest lists the report's files
// and sources; a million sources take about 300 MB, far beyond any run.
const maxManifestBytes = 256 << 20

// partFile resolves a part's path inside the report at dir, refusing
// anything but detail/<part id>.js.
func partFile(dir string, p model.ShardPart) (string, error) {
	want := DetailDir + "/" + p.ID + ".js"
	if p.Path != want || path.Clean(p.Path) != p.Path || strings.ContainsAny(p.ID, `/\.`) {
		return "", fmt.Errorf("part path %q is not %s/<part id>.js inside the report; refusing to read it", p.Path, DetailDir)
	}
	if p.Bytes < 0 || p.Bytes > PartBytes {
		return "", fmt.Errorf("part %s declares %d bytes, outside 0..%d", p.Path, p.Bytes, PartBytes)
	}
	if st, err := os.Lstat(filepath.Join(dir, DetailDir)); err != nil {
		return "", err
	} else if !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory", filepath.Join(dir, DetailDir))
	}
	return filepath.Join(dir, filepath.FromSlash(p.Path)), nil
}

// readBounded reads a regular file (never a symlink, FIFO or device) of at
// most limit bytes.
func readBounded(file string, limit int64) ([]byte, error) {
	st, err := os.Lstat(file)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); refusing to read it", file, st.Mode().Type())
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d the manifest declares", file, st.Size(), limit)
	}
	f, err := os.OpenFile(file, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized from the stat, so a multi-megabyte core is read into one
	// buffer instead of io.ReadAll's doublings (a third of a CLI
	// question's start-up).
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s grew past the %d bytes the manifest declares", file, limit)
	}
	return b, nil
}

// readPart reads one part's envelope, bounded by its declared size.
func readPart(dir string, p model.ShardPart) (string, []byte, error) {
	file, err := partFile(dir, p)
	if err != nil {
		return "", nil, err
	}
	script, err := readBounded(file, int64(shard.PartLen(p.Bytes)))
	if err != nil {
		return file, nil, err
	}
	return file, script, nil
}

var errNoParts = errors.New("shard lists no parts")
