package metrics

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/dsight/dsight/internal/tachometer"
)

// A capture is read in two passes so that memory does not grow with the
// number of samples. The first pass (the tachometer read) appends each
// series' (time, value) pairs to a small per-series buffer; a full buffer is
// written to a temporary file as one fixed-size block, and the series
// remembers the block's number. The second pass loads one series at a time
// from its blocks, in the order the reader delivered them, and summarizes
// it. What stays in memory during the read is one buffer per series and the
// block numbers (4 bytes per block), not the points.

// spillRecord is the size of one (time, value) pair in the file: the time
// and the value's IEEE bits, little-endian.
const spillRecord = 16

// defaultSpillBlock is the bytes per block: 256 pairs. Smaller blocks cost
// more reads in the second pass; larger ones more buffer memory per series
// during the first.
const defaultSpillBlock = 4096

// maxSpillBlocks bounds the block numbers, which are kept as uint32.
const maxSpillBlocks = math.MaxUint32

// pointStore keeps a capture's points between the read and the summaries.
type pointStore interface {
	tachometer.Sink
	// seriesInfos are the announced series, indexed by series id.
	seriesInfos() []*tachometer.SeriesInfo
	// endRead is called once the read has delivered every point.
	endRead() error
	// load returns series i's pairs sorted by time, stably (ties keep read
	// order: file, then row). The slices live in sc and stay valid until
	// sc is used again. load may be called concurrently with distinct
	// scratches and distinct i, once the read has ended.
	load(i int, sc *loadScratch) (times []int64, values []float64, err error)
	// release forgets series i's pairs once it is summarized.
	release(i int)
	// close releases the store; it is safe to call more than once.
	close() error
}

// loadScratch holds one loader's reusable buffers.
type loadScratch struct {
	raw    []byte
	times  []int64
	values []float64
}

// spillStore is the pointStore of a read: a tachometer.Sink that spills
// fixed-size blocks of pairs to a file in its own temporary directory.
type spillStore struct {
	dir       string
	f         *os.File
	w         *bufio.Writer
	blockSize int
	blocks    int64 // blocks written
	infos     []*tachometer.SeriesInfo
	series    []spilledSeries
	done      bool // the read has ended and w is flushed
}

// spilledSeries is one series' place in the spill.
type spilledSeries struct {
	pending []byte   // pairs not yet written, fewer than a block
	blocks  []uint32 // block numbers in the file, in read order
	n       int      // pairs in all
	sorted  bool     // every pair arrived at or after the previous one
	lastT   int64
}

// newSpillStore creates the temporary file. blockSize must be a positive
// multiple of spillRecord (0: defaultSpillBlock).
func newSpillStore(blockSize int) (*spillStore, error) {
	if blockSize == 0 {
		blockSize = defaultSpillBlock
	}
	if blockSize <= 0 || blockSize%spillRecord != 0 {
		return nil, fmt.Errorf("spill block of %d bytes is not a positive multiple of %d", blockSize, spillRecord)
	}
	dir, err := os.MkdirTemp("", "dsight-metrics-")
	if err != nil {
		return nil, fmt.Errorf("metric spill: %w", err)
	}
	f, err := os.CreateTemp(dir, "points-*")
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("metric spill: %w", err)
	}
	return &spillStore{dir: dir, f: f, w: bufio.NewWriterSize(f, 1<<20), blockSize: blockSize}, nil
}

func (s *spillStore) Series(info *tachometer.SeriesInfo) error {
	if info.ID != len(s.infos) {
		return fmt.Errorf("capture series %d announced as number %d", info.ID, len(s.infos))
	}
	s.infos = append(s.infos, info)
	s.series = append(s.series, spilledSeries{sorted: true})
	return nil
}

func (s *spillStore) Points(ps []tachometer.Point) error {
	for i := range ps {
		p := &ps[i]
		if p.Series < 0 || int(p.Series) >= len(s.series) {
			return fmt.Errorf("capture point names series %d of %d", p.Series, len(s.series))
		}
		ss := &s.series[p.Series]
		if ss.n > 0 && ss.lastT > p.TimeNS {
			ss.sorted = false
		}
		ss.lastT = p.TimeNS
		ss.n++
		if ss.pending == nil {
			ss.pending = make([]byte, 0, s.blockSize)
		}
		ss.pending = binary.LittleEndian.AppendUint64(ss.pending, uint64(p.TimeNS))
		ss.pending = binary.LittleEndian.AppendUint64(ss.pending, math.Float64bits(p.Value))
		if len(ss.pending) == s.blockSize {
			if err := s.writeBlock(ss); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *spillStore) writeBlock(ss *spilledSeries) error {
	if s.blocks >= maxSpillBlocks {
		return errors.New("metric spill: too many blocks")
	}
	if _, err := s.w.Write(ss.pending); err != nil {
		return fmt.Errorf("metric spill: %w", err)
	}
	ss.blocks = append(ss.blocks, uint32(s.blocks))
	s.blocks++
	ss.pending = ss.pending[:0]
	return nil
}

func (s *spillStore) seriesInfos() []*tachometer.SeriesInfo { return s.infos }

// endRead flushes the file; the pairs of each series' last partial block
// stay in memory.
func (s *spillStore) endRead() error {
	if s.done {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("metric spill: %w", err)
	}
	s.w, s.done = nil, true
	return nil
}

func (s *spillStore) load(i int, sc *loadScratch) ([]int64, []float64, error) {
	if !s.done {
		return nil, nil, errors.New("metric spill: load before the read ended")
	}
	ss := &s.series[i]
	total := len(ss.blocks)*s.blockSize + len(ss.pending)
	if total != ss.n*spillRecord {
		return nil, nil, fmt.Errorf("metric spill: series %d holds %d bytes for %d pairs", i, total, ss.n)
	}
	if cap(sc.raw) < total {
		sc.raw = make([]byte, total)
	}
	raw := sc.raw[:total]
	// Blocks written one after another are read in one call.
	off := 0
	for k := 0; k < len(ss.blocks); {
		run := 1
		for k+run < len(ss.blocks) && ss.blocks[k+run] == ss.blocks[k]+uint32(run) {
			run++
		}
		n := run * s.blockSize
		if _, err := s.f.ReadAt(raw[off:off+n], int64(ss.blocks[k])*int64(s.blockSize)); err != nil {
			return nil, nil, fmt.Errorf("metric spill: %w", err)
		}
		off += n
		k += run
	}
	copy(raw[off:], ss.pending)
	times, values := grow(&sc.times, ss.n), grow(&sc.values, ss.n)
	for k := range ss.n {
		rec := raw[k*spillRecord : (k+1)*spillRecord]
		times[k] = int64(binary.LittleEndian.Uint64(rec))
		values[k] = math.Float64frombits(binary.LittleEndian.Uint64(rec[8:]))
	}
	if !ss.sorted {
		sort.Stable(byTime{times, values})
	}
	return times, values, nil
}

func (s *spillStore) release(i int) {
	s.series[i] = spilledSeries{}
}

func (s *spillStore) close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	s.f, s.w = nil, nil
	return err
}

// grow returns (*buf)[:n], reallocating only when it is too small.
func grow[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	return (*buf)[:n]
}

// byTime sorts one series' pairs by time, stably.
type byTime struct {
	t []int64
	v []float64
}

func (b byTime) Len() int           { return len(b.t) }
func (b byTime) Less(i, j int) bool { return b.t[i] < b.t[j] }
func (b byTime) Swap(i, j int) {
	b.t[i], b.t[j] = b.t[j], b.t[i]
	b.v[i], b.v[j] = b.v[j], b.v[i]
}
