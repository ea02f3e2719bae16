package report

import (
	"errors"
	"fmt"
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
	return readBoundedInto(nil, file, limit)
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
