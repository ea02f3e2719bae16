package metrics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"
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
//
// A block is the byte count it uses (uint16, little-endian) and then pairs,
// each encoded against the series' previous pair (the first against time 0
// and value bits 0): the change in the time step as a zigzag uvarint, then
// the XOR of the value's IEEE bits with the previous value's, as one byte
// giving its leading and trailing zero bytes and the bytes between them.
// Scrapes at a steady interval and repeated or nearby values take a few
// bytes instead of 16, which keeps the file and its reads small.

// maxSpillPair is the longest encoded pair: a 10-byte uvarint, a header
// byte and 8 value bytes.
const maxSpillPair = binary.MaxVarintLen64 + 1 + 8 + maxSpillEvidence

// spillHeader is the bytes of a block's used-length field.
const spillHeader = 2

// defaultSpillBlock is the bytes per block. Smaller blocks cost more reads in
// the second pass; larger ones more buffer memory per series during the
// first.
const defaultSpillBlock = 4096

// spillSweepBytes is how far the pending blocks may grow between sweeps
// that write out the blocks of series no point reached since the last
// sweep (see sweep).
const spillSweepBytes = 4 << 20

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
	// release forgets series i's pairs once it is summarized; like load, it
	// may be called concurrently for distinct i.
	release(i int)
	// close releases the store; it is safe to call more than once.
	close() error
}

// loadScratch holds one loader's reusable buffers.
type loadScratch struct {
	raw    []byte
	times  []int64
	values []float64
	// sources and rows are each pair's evidence when the store keeps it
	// (spillevidence.go); a store that does not leaves them empty.
	sources, rows []int64
	run           runScratch // capturepoints.go
}

// spillStore is the pointStore of a read: a tachometer.Sink that spills
// fixed-size blocks of pairs to a file in its own temporary directory.
// dir is "" once the file and directory are unlinked while the file is open.
type spillStore struct {
	dir       string
	f         *os.File
	w         *spillWriter // spillwriter.go
	blockSize int
	blocks    int64 // blocks written
	infos     []*tachometer.SeriesInfo
	series    []spilledSeries
	done      bool // the read has ended and w is flushed
	// pending is the capacity of all pending blocks; a sweep runs when it
	// passes sweepAt, and the next when it grew by sweepBytes more.
	pending, sweepAt, sweepBytes int
}

// spilledSeries is one series' place in the spill.
type spilledSeries struct {
	pending []byte   // the block being filled, its length field not yet set
	blocks  []uint32 // block numbers in the file, in read order
	n       int      // pairs in all
	sorted  bool     // every pair arrived at or after the previous one
	touched bool     // a pair arrived since the last sweep
	enc     pairCodec
	ev      evidenceCodec
}

// pairCodec is the previous pair of a series, which the next is encoded
// against.
type pairCodec struct {
	t, step int64
	bits    uint64
}

func (c *pairCodec) append(dst []byte, t int64, v float64) []byte {
	return c.appendMarked(dst, t, v, 0)
}

// appendMarked is append with mark (0 or spillSameStride) set in the
// pair's XOR header.
func (c *pairCodec) appendMarked(dst []byte, t int64, v float64, mark byte) []byte {
	step := t - c.t // wrapping, as is the decoder's sum
	d, b := zigzag(step-c.step), math.Float64bits(v)
	x := b ^ c.bits
	c.t, c.step, c.bits = t, step, b
	if d < 0x80 {
		if x == 0 {
			// The steady scrape of an unchanged value, most pairs of a
			// capture: the one-byte varint and the zero XOR's header.
			return append(dst, byte(d), mark)
		}
		dst = append(dst, byte(d))
	} else {
		dst = binary.AppendUvarint(dst, d)
	}
	h := len(dst)
	dst = appendXOR(dst, x)
	dst[h] |= mark
	return dst
}

// next decodes one unmarked pair from src and returns the bytes it used,
// or 0 when src ends inside the pair.
func (c *pairCodec) next(src []byte) (t int64, v float64, used int) {
	t, v, mark, used := c.nextMarked(src)
	if mark != 0 {
		return 0, 0, 0
	}
	return t, v, used
}

// nextMarked is next for a pair that may carry a mark.
func (c *pairCodec) nextMarked(src []byte) (t int64, v float64, mark byte, used int) {
	d, n := binary.Uvarint(src)
	if n <= 0 || n >= len(src) {
		return 0, 0, 0, 0
	}
	mark = src[n] & spillSameStride
	x, m := readXOR(src[n:], mark)
	if m == 0 {
		return 0, 0, 0, 0
	}
	c.step += unzigzag(d)
	c.t += c.step
	c.bits ^= x
	return c.t, math.Float64frombits(c.bits), mark, n + m
}

func zigzag(x int64) uint64   { return uint64(x<<1) ^ uint64(x>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// appendXOR writes x as a header byte, 0 for zero, else 1 + 8×(leading zero
// bytes) + (trailing zero bytes), then the bytes between, least significant
// first.
func appendXOR(dst []byte, x uint64) []byte {
	if x == 0 {
		return append(dst, 0)
	}
	lead, trail := bits.LeadingZeros64(x)/8, bits.TrailingZeros64(x)/8
	dst = append(dst, byte(1+8*lead+trail))
	x >>= 8 * trail
	for range 8 - lead - trail {
		dst = append(dst, byte(x))
		x >>= 8
	}
	return dst
}

// readXOR decodes what appendXOR wrote, with the mark bits of its header
// cleared; used is 0 when src is too short or the header is impossible.
func readXOR(src []byte, mark byte) (x uint64, used int) {
	if len(src) == 0 {
		return 0, 0
	}
	h := int(src[0] &^ mark)
	if h == 0 {
		return 0, 1
	}
	lead, trail := (h-1)/8, (h-1)%8
	n := 8 - lead - trail
	if h > 64 || n <= 0 || len(src) < 1+n {
		return 0, 0
	}
	for i := n; i >= 1; i-- {
		x = x<<8 | uint64(src[i])
	}
	return x << (8 * trail), 1 + n
}

// newSpillStore creates the temporary file. blockSize must hold at least one
// pair and fit its length field (0: defaultSpillBlock).
func newSpillStore(blockSize int) (*spillStore, error) {
	if blockSize == 0 {
		blockSize = defaultSpillBlock
	}
	if blockSize < spillHeader+maxSpillPair || blockSize > math.MaxUint16 {
		return nil, fmt.Errorf("spill block of %d bytes is outside [%d, %d]", blockSize, spillHeader+maxSpillPair, math.MaxUint16)
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
	// Where an open file can be unlinked (not on Windows), nothing is left
	// behind even if the process is killed; elsewhere close removes it.
	if os.Remove(f.Name()) == nil && os.Remove(dir) == nil {
		dir = ""
	}
	return &spillStore{dir: dir, f: f, w: newSpillWriter(f, 1<<20), blockSize: blockSize, sweepAt: spillSweepBytes, sweepBytes: spillSweepBytes}, nil
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
		if ss.n > 0 && ss.enc.t > p.TimeNS {
			ss.sorted = false
		}
		ss.n++
		ss.touched = true
		if ss.pending == nil {
			// Start small: a capture of 100k short series would otherwise
			// hold a whole block per series before any is full.
			ss.pending = make([]byte, spillHeader, min(s.blockSize, 64))
			s.pending += cap(ss.pending)
		} else if len(ss.pending)+maxSpillPair > s.blockSize {
			if err := s.writeBlock(ss); err != nil {
				return err
			}
		}
		before := cap(ss.pending)
		if ss.ev.sameStride(p.Source, p.Row) {
			ss.pending = ss.enc.appendMarked(ss.pending, p.TimeNS, p.Value, spillSameStride)
		} else {
			ss.pending = ss.enc.append(ss.pending, p.TimeNS, p.Value)
			ss.pending = ss.ev.append(ss.pending, p.Source, p.Row)
		}
		s.pending += cap(ss.pending) - before
	}
	if s.pending > s.sweepAt {
		return s.sweep()
	}
	return nil
}

// sweep writes out the pending block of every series no point reached since
// the last sweep, and frees it. A capture sorted by name (final.parquet)
// finishes its series one after another: without sweeps every finished
// series kept up to a block in memory until the end of the read (24 MB for
// 6,000 series, far more for 100k short ones). A partial block costs its
// padding in the file; series still receiving points keep theirs, so an
// interleaved capture is not split into many small blocks.
func (s *spillStore) sweep() error {
	for i := range s.series {
		ss := &s.series[i]
		if ss.pending != nil && !ss.touched {
			if len(ss.pending) > spillHeader {
				if err := s.writeBlock(ss); err != nil {
					return err
				}
			}
			s.pending -= cap(ss.pending)
			ss.pending = nil
		}
		ss.touched = false
	}
	s.sweepAt = s.pending + s.sweepBytes
	return nil
}

// writeBlock writes the series' pending block, padded to the block size.
func (s *spillStore) writeBlock(ss *spilledSeries) error {
	if s.blocks >= maxSpillBlocks {
		return errors.New("metric spill: too many blocks")
	}
	binary.LittleEndian.PutUint16(ss.pending, uint16(len(ss.pending)))
	used, before := len(ss.pending), cap(ss.pending)
	ss.pending = slices.Grow(ss.pending, s.blockSize-used)[:s.blockSize]
	s.pending += cap(ss.pending) - before
	clear(ss.pending[used:])
	if _, err := s.w.Write(ss.pending); err != nil {
		return fmt.Errorf("metric spill: %w", err)
	}
	ss.blocks = append(ss.blocks, uint32(s.blocks))
	s.blocks++
	ss.pending = ss.pending[:spillHeader]
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
	times, values := grow(&sc.times, ss.n), grow(&sc.values, ss.n)
	sources, rows := grow(&sc.sources, ss.n), grow(&sc.rows, ss.n)
	sc.sources, sc.rows = sources, rows // their length is what capture reads
	d := spillDecoder{times: times, values: values, sources: sources, rows: rows}
	decode := func(pairs []byte) error {
		if !d.decode(pairs) {
			return fmt.Errorf("metric spill: series %d does not decode to its %d pairs", i, ss.n)
		}
		return nil
	}
	// Blocks written one after another are read as one run, with one
	// ReadAt.
	for b := 0; b < len(ss.blocks); {
		run := 1
		for b+run < len(ss.blocks) && ss.blocks[b+run] == ss.blocks[b]+uint32(run) {
			run++
		}
		raw, err := s.readRun(ss.blocks[b], run, sc)
		if err != nil {
			return nil, nil, err
		}
		for off := 0; off < len(raw); off += s.blockSize {
			used := int(binary.LittleEndian.Uint16(raw[off:]))
			if used < spillHeader || used > s.blockSize {
				return nil, nil, fmt.Errorf("metric spill: series %d has a block of %d bytes", i, used)
			}
			if err := decode(raw[off+spillHeader : off+used]); err != nil {
				return nil, nil, err
			}
		}
		b += run
	}
	if len(ss.pending) > 0 {
		if err := decode(ss.pending[spillHeader:]); err != nil {
			return nil, nil, err
		}
	}
	if d.k != ss.n {
		return nil, nil, fmt.Errorf("metric spill: series %d decodes to %d of its %d pairs", i, d.k, ss.n)
	}
	if !ss.sorted {
		sort.Stable(byTimeWithEvidence{byTime{times, values}, sources, rows})
	}
	return times, values, nil
}

// readRun reads n consecutive blocks from block first on into sc.raw, which
// holds one run at a time rather than the whole series.
func (s *spillStore) readRun(first uint32, n int, sc *loadScratch) ([]byte, error) {
	raw := grow(&sc.raw, n*s.blockSize)
	if _, err := s.f.ReadAt(raw, int64(first)*int64(s.blockSize)); err != nil {
		return nil, fmt.Errorf("metric spill: %w", err)
	}
	return raw, nil
}

// release touches series i alone: the pending-bytes count is the read's,
// and summaries release series on several goroutines at once.
func (s *spillStore) release(i int) {
	s.series[i] = spilledSeries{}
}

func (s *spillStore) close() error {
	if s.f == nil {
		return nil
	}
	if s.w != nil {
		s.w.Flush() // stops its goroutine; a read that failed needs no more
	}
	err := s.f.Close()
	if s.dir != "" {
		if rerr := os.RemoveAll(s.dir); err == nil {
			err = rerr
		}
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
