package sqlstore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
)

// server_spans_window orders every span by (start, rowid): 20M spans at
// 1M traced requests. Sorted in memory they were 20M × 16 bytes (320 MB)
// held beside the report's render, the largest of the store's buffers at
// a traced build's highest live heap (docs/measurements.md, issue 17).
// The starts the join spilled in rowid order are sorted instead in runs
// of startRunLen, each run written to a file of its own, and the runs are
// merged as the index is written: the build holds one run while they are
// sorted and a read buffer a run while they are merged.

// startRunLen is how many starts one run sorts in memory (16 MB of them).
// Tests lower it.
var startRunLen int64 = 1 << 20

// startRunRead is each run's read buffer during the merge.
const startRunRead = 64 << 10

// startRuns are spilled starts sorted in runs: run i holds those of rowids
// [i·runLen, (i+1)·runLen) in compareStarts order, 16 bytes each (the
// start's bits, the rowid), in a file unlinked when made.
type startRuns struct {
	f      *os.File
	n      int64 // starts in all the runs
	runLen int64
}

// sortRuns sorts the n starts spilled in rowid order in src (each the
// bits of a float64) into runs, in a file under dir ("" for the system's
// temporary directory).
func sortRuns(src io.ReaderAt, n int64, dir string) (_ *startRuns, err error) {
	f, err := os.CreateTemp(dir, ".trace-data-start-runs-*")
	if err != nil {
		return nil, fmt.Errorf("the span starts' runs: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("the span starts' runs: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	runLen := max(startRunLen, 1)
	r := bufio.NewReaderSize(io.NewSectionReader(src, 0, 8*n), 1<<20)
	out := bufio.NewWriterSize(f, 1<<20)
	run := make([]spanStart, 0, min(runLen, n))
	var b [16]byte
	for first := int64(0); first < n; first += runLen {
		run = run[:0]
		for rowid := first; rowid < min(first+runLen, n); rowid++ {
			if _, err := io.ReadFull(r, b[:8]); err != nil {
				return nil, fmt.Errorf("the spilled span starts: %w", err)
			}
			run = append(run, spanStart{math.Float64frombits(binary.LittleEndian.Uint64(b[:8])), rowid})
		}
		slices.SortFunc(run, compareStarts)
		for _, s := range run {
			binary.LittleEndian.PutUint64(b[:8], math.Float64bits(s.start))
			binary.LittleEndian.PutUint64(b[8:], uint64(s.rowid))
			if _, err := out.Write(b[:]); err != nil {
				return nil, fmt.Errorf("the span starts' runs: %w", err)
			}
		}
	}
	if err := out.Flush(); err != nil {
		return nil, fmt.Errorf("the span starts' runs: %w", err)
	}
	return &startRuns{f: f, n: n, runLen: runLen}, nil
}

// close removes the runs.
func (r *startRuns) close() error {
	if r == nil {
		return nil
	}
	return r.f.Close()
}

// each calls f with every start of the runs and of extra (in
// compareStarts order, the spans added after the spilled ones), in
// compareStarts order; it stops at f's first error. The runs may be
// merged more than once, one merge at a time.
func (r *startRuns) each(extra []spanStart, f func(spanStart) error) error {
	var h startHeap
	if r != nil {
		for first := int64(0); first < r.n; first += r.runLen {
			size := min(r.runLen, r.n-first)
			c := &startCursor{left: size,
				r: bufio.NewReaderSize(io.NewSectionReader(r.f, 16*first, 16*size), startRunRead)}
			if err := h.push(c); err != nil {
				return err
			}
		}
	}
	if err := h.push(&startCursor{mem: extra, left: int64(len(extra))}); err != nil {
		return err
	}
	for len(h) > 0 {
		c := h[0]
		if err := f(c.cur); err != nil {
			return err
		}
		if ok, err := c.next(); err != nil {
			return err
		} else if !ok {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		h.down()
	}
	return nil
}

// startCursor reads one sorted run, from its file or from memory (mem).
type startCursor struct {
	cur  spanStart // the run's next start
	r    *bufio.Reader
	mem  []spanStart
	left int64 // starts not yet read into cur
	b    [16]byte
}

// next reads the run's next start into cur, false at its end.
func (c *startCursor) next() (bool, error) {
	if c.left == 0 {
		return false, nil
	}
	c.left--
	if c.r == nil {
		c.cur, c.mem = c.mem[0], c.mem[1:]
		return true, nil
	}
	if _, err := io.ReadFull(c.r, c.b[:]); err != nil {
		return false, fmt.Errorf("the span starts' runs: %w", err)
	}
	c.cur = spanStart{math.Float64frombits(binary.LittleEndian.Uint64(c.b[:8])), int64(binary.LittleEndian.Uint64(c.b[8:]))}
	return true, nil
}

// startHeap is the runs being merged, the one whose next start sorts
// first at its root.
type startHeap []*startCursor

// push adds a run, unless it is empty.
func (h *startHeap) push(c *startCursor) error {
	if ok, err := c.next(); err != nil || !ok {
		return err
	}
	*h = append(*h, c)
	for i := len(*h) - 1; i > 0; {
		parent := (i - 1) / 2
		if compareStarts((*h)[i].cur, (*h)[parent].cur) >= 0 {
			break
		}
		(*h)[i], (*h)[parent] = (*h)[parent], (*h)[i]
		i = parent
	}
	return nil
}

// down moves the root down to its place.
func (h startHeap) down() {
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && compareStarts(h[l].cur, h[least].cur) < 0 {
			least = l
		}
		if r < len(h) && compareStarts(h[r].cur, h[least].cur) < 0 {
			least = r
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}
