package metrics

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/dsight/dsight/internal/model"
)

// summarySpool keeps the compressed summaries of a build's series in a
// temporary file until the report writer copies them. They are the largest
// thing a build holds once the capture is read (100M samples: 49 MB of an
// 80 MB live heap), and each is read back exactly once.
type summarySpool struct {
	mu  sync.Mutex
	f   *os.File
	end int64
}

// newSummarySpool creates the spool. Where an open file can be unlinked
// (not on Windows) it is unlinked at once, so nothing is left behind even if
// the process is killed; the file is then closed, and its space freed, when
// no summary refers to the spool any more.
func newSummarySpool() (*summarySpool, error) {
	f, err := os.CreateTemp("", "dsight-summaries-*")
	if err != nil {
		return nil, fmt.Errorf("summary spool: %w", err)
	}
	s := &summarySpool{f: f}
	if os.Remove(f.Name()) != nil {
		runtime.AddCleanup(s, func(f *os.File) {
			f.Close()
			os.Remove(f.Name())
		}, f)
	}
	return s, nil
}

// add appends one payload and returns it as a Blob that reads it back.
func (s *summarySpool) add(payload []byte) (model.Blob, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.WriteAt(payload, s.end); err != nil {
		return nil, fmt.Errorf("summary spool: %w", err)
	}
	b := spooled{s: s, off: s.end, n: len(payload)}
	s.end += int64(len(payload))
	return b, nil
}

// spooled is one payload in a summarySpool.
type spooled struct {
	s   *summarySpool
	off int64
	n   int
}

func (b spooled) Len() int { return b.n }

func (b spooled) Bytes() ([]byte, error) {
	buf := make([]byte, b.n)
	if _, err := b.s.f.ReadAt(buf, b.off); err != nil {
		return nil, fmt.Errorf("summary spool: %w", err)
	}
	return buf, nil
}
