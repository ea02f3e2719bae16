package catalog

import (
	"fmt"

	"github.com/dsight/dsight/internal/shard"
)

// NVTXChunk is a decoded range shard, as the query engine holds it while
// the views read it: its rows in the profile's range order, times relative
// to the origin. A profile of five million ranges should fit the engine's
// detail cache decoded, so the columns are packed (packedInts): start and
// duration as offsets from the chunk's least, the name id and the row id
// the same way, and the thread as an index into the chunk's distinct
// global thread ids, each exact (ids above 2^53 included). Rows read back
// one at a time (Start, End, ...) or a block of a column at a time into a
// buffer the caller reuses (Starts, Ends, ...).
type NVTXChunk struct {
	rows                          int
	start, dur, name, thread, row packedInts
	// Threads are the chunk's distinct global thread ids, in order of
	// first appearance.
	Threads []int64
}

// Len is the chunk's row count.
func (c *NVTXChunk) Len() int { return c.rows }

// Start is row r's start, ns from the origin.
func (c *NVTXChunk) Start(r int) int64 { return c.start.at(r) }

// End is row r's end, ns from the origin.
func (c *NVTXChunk) End(r int) int64 { return c.start.at(r) + c.dur.at(r) }

// Name is row r's index into the profile's names (as the import kept it:
// out of range stands for no name).
func (c *NVTXChunk) Name(r int) int64 { return c.name.at(r) }

// Thread is row r's index into Threads.
func (c *NVTXChunk) Thread(r int) int { return int(c.thread.at(r)) }

// GlobalTID is row r's Nsight global thread id.
func (c *NVTXChunk) GlobalTID(r int) int64 { return c.Threads[c.thread.at(r)] }

// RowID is row r's rowid in its export's NVTX_EVENTS.
func (c *NVTXChunk) RowID(r int) int64 { return c.row.at(r) }

// Starts writes the starts of rows [lo, hi) into dst (reused when large
// enough).
func (c *NVTXChunk) Starts(dst []int64, lo, hi int) []int64 { return c.start.expand(dst, lo, hi) }

// Ends writes the ends of rows [lo, hi) into dst, given their starts.
func (c *NVTXChunk) Ends(dst, starts []int64, lo, hi int) []int64 {
	dst = c.dur.expand(dst, lo, hi)
	for r, s := range starts[:hi-lo] {
		dst[r] += s
	}
	return dst
}

// Names writes the name indexes of rows [lo, hi) into dst.
func (c *NVTXChunk) Names(dst []int64, lo, hi int) []int64 { return c.name.expand(dst, lo, hi) }

// ThreadIndexes writes the indexes into Threads of rows [lo, hi) into dst.
func (c *NVTXChunk) ThreadIndexes(dst []int64, lo, hi int) []int64 {
	return c.thread.expand(dst, lo, hi)
}

// ScanBlock is the rows a column at a time read takes in one go: small
// buffers, reused, that stay in the processor's cache.
const ScanBlock = 256

// HeldBytes is the memory the decoded chunk holds: what the engine's
// detail cache budget counts.
func (c *NVTXChunk) HeldBytes() int64 {
	n := int64(128 + 8*len(c.Threads))
	for _, p := range [...]*packedInts{&c.start, &c.dur, &c.name, &c.thread, &c.row} {
		n += p.heldBytes()
	}
	return n
}

// DecodeNVTXChunk reads a range shard.
func DecodeNVTXChunk(s *shard.Shard) (*NVTXChunk, error) {
	if s.Kind != NVTXKind {
		return nil, fmt.Errorf("shard kind is %q, want %q", s.Kind, NVTXKind)
	}
	o := opener{s: s}
	t := o.table(NVTXKind)
	if t == nil {
		return nil, fmt.Errorf("nvtx shard has no %s table", NVTXKind)
	}
	start, dur, name, tid, row := o.ints(t, "start_ns"), o.ints(t, "duration_ns"), o.ints(t, "name"), o.ints(t, "global_tid"), o.ints(t, "rowid")
	if o.err != nil {
		return nil, o.err
	}
	n := len(start)
	if len(dur) != n || len(name) != n || len(tid) != n || len(row) != n {
		return nil, fmt.Errorf("nvtx shard columns hold %d, %d, %d, %d and %d rows", n, len(dur), len(name), len(tid), len(row))
	}
	c := &NVTXChunk{rows: n, start: packInts(start), dur: packInts(dur), name: packInts(name), row: packInts(row)}
	// Threads are usually few: a linear search, remembering the last,
	// beats a map until there are many.
	idx := make([]int64, n)
	var many map[int64]int
	last := -1
	for r, g := range tid {
		if last < 0 || c.Threads[last] != g {
			last = -1
			if many != nil {
				if k, ok := many[g]; ok {
					last = k
				}
			} else {
				for k, h := range c.Threads {
					if h == g {
						last = k
						break
					}
				}
			}
			if last < 0 {
				c.Threads = append(c.Threads, g)
				last = len(c.Threads) - 1
				if many != nil {
					many[g] = last
				} else if len(c.Threads) > 32 {
					many = make(map[int64]int, 64)
					for k, h := range c.Threads {
						many[h] = k
					}
				}
			}
		}
		idx[r] = int64(last)
	}
	c.thread = packInts(idx)
	return c, nil
}
