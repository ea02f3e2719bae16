package catalog

import (
	"fmt"
	"os"
	"sync"
)

// evidenceSpill keeps the deflated evidence chunks of a streamed build on
// disk as they are finished, so that the build holds a descriptor per
// chunk (where its bytes lie, 24 bytes) instead of its payload (about a
// kilobyte a request): at a million traced requests that is the
// difference between a few megabytes and a gigabyte held from the join
// until the report is written. The report writer and the SQL store read
// the chunks back from it, one evidence shard at a time.
//
// The file is unlinked as soon as it is created, where the system allows
// it, so it goes when the build ends however it ends.
type evidenceSpill struct {
	mu  sync.Mutex
	f   *os.File
	end int64
}

// newEvidenceSpill opens a spill file in dir (the system temp dir when
// empty); nil when it cannot, and the chunks are then held in memory as
// before: a build that cannot spill still builds.
func newEvidenceSpill(dir string) *evidenceSpill {
	f, err := os.CreateTemp(dir, "dsight-evidence-*")
	if err != nil {
		return nil
	}
	// On systems that cannot remove an open file it stays in the temp
	// dir; the bytes are the report's evidence, nothing more.
	os.Remove(f.Name())
	return &evidenceSpill{f: f}
}

// put appends b and returns where it lies.
func (s *evidenceSpill) put(b []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.end
	if _, err := s.f.WriteAt(b, at); err != nil {
		return 0, err
	}
	s.end += int64(len(b))
	return at, nil
}

// payload is chunk ch's deflated bytes: read back from the spill when
// the chunk was spilled, else the bytes it holds.
func (s *evidenceSpill) payload(ch chunk) (string, error) {
	if !ch.spilled {
		return ch.deflated, nil
	}
	if s == nil {
		return "", fmt.Errorf("server evidence chunk spilled without a spill file")
	}
	b := make([]byte, ch.stored)
	if _, err := s.f.ReadAt(b, ch.at); err != nil {
		return "", fmt.Errorf("read back server evidence chunk: %w", err)
	}
	return string(b), nil
}

// chunkLen is the length of chunk ch's deflated bytes.
func chunkLen(ch chunk) int {
	if ch.spilled {
		return int(ch.stored)
	}
	return len(ch.deflated)
}
