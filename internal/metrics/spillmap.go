package metrics

import (
	"fmt"
	"os"
)

// The second pass reads each series' blocks where the file is mapped into
// memory, when the system can map it: the pairs are decoded straight from
// the page cache, with no read call per run of blocks and no copy into a
// loader's buffer (100M-sample capture: ~310 MB of blocks, read back once).
// Where mapping is unavailable or fails, load reads the blocks with ReadAt
// as before; the decoded pairs are the same either way.

// spillMapping is the read-only mapping of a finished spill file; data is
// nil when the file is not mapped.
type spillMapping struct {
	data []byte
}

// mapSpill maps the first size bytes of f, or returns an empty mapping
// when it cannot (no error: ReadAt still works).
func mapSpill(f *os.File, size int64) spillMapping {
	if size <= 0 || int64(int(size)) != size {
		return spillMapping{}
	}
	data, err := mapFile(f, int(size))
	if err != nil {
		return spillMapping{}
	}
	return spillMapping{data: data}
}

// blocks returns the n blocks of blockSize bytes starting at block first.
func (m spillMapping) blocks(first uint32, n, blockSize int) ([]byte, error) {
	lo := int64(first) * int64(blockSize)
	hi := lo + int64(n)*int64(blockSize)
	if hi > int64(len(m.data)) {
		return nil, fmt.Errorf("metric spill: blocks %d..%d are past the file's end", first, int64(first)+int64(n)-1)
	}
	return m.data[lo:hi:hi], nil
}

func (m *spillMapping) close() error {
	if m.data == nil {
		return nil
	}
	err := unmapFile(m.data)
	m.data = nil
	return err
}
