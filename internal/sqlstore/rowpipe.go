package sqlstore

import (
	"fmt"
	"sync"
)

// A bulk table's rows are made in two halves of about equal cost: putting
// them in key order and encoding them, then laying the encoded rows into
// the b-tree and writing its pages. pipeRows runs the halves on two
// goroutines, handing rows over in batches, so a table's critical path on
// a two-core machine is about the longer half rather than their sum. The
// rows, their order and so the file's bytes are the ones one goroutine
// makes.

// pipeBatchRows is how many encoded rows a batch holds: large enough that
// the hand-over costs nothing per row, small enough that the few batches
// in flight stay a few hundred kilobytes.
const pipeBatchRows = 4096

// pipeBatches is how many batches circulate between the two halves.
const pipeBatches = 4

// encodedBatch is a run of encoded rows of one tree, in key order, or the
// error that stopped their encoding. Every row of a batch is of what its
// label names (a profile, a metric series), for errors.
type encodedBatch struct {
	label string
	buf   []byte // the rows' records, back to back
	ends  []int  // where each row ends in buf
	err   error
	last  bool // the item's last batch
}

// rowSink is the encoding half's end of the pipe. The encoder appends a
// row to room() and hands the grown buffer to ended.
type rowSink struct {
	free <-chan *encodedBatch
	out  chan<- *encodedBatch
	stop <-chan struct{}
	b    *encodedBatch
}

// begin starts the rows of what label names, in a batch of their own. It
// is false once the layout half has stopped.
func (s *rowSink) begin(label string) bool {
	if s.b != nil && len(s.b.ends) > 0 && !s.send() {
		return false
	}
	if s.b == nil && !s.take() {
		return false
	}
	s.b.label = label
	return true
}

// room is the batch's buffer, for the next row to be appended to.
func (s *rowSink) room() []byte { return s.b.buf }

// add appends rec, a row's record, to the batch; it is ended's answer.
func (s *rowSink) add(rec []byte) bool { return s.ended(append(s.room(), rec...)) }

// ended takes buf, room() with one more row appended. It is false once
// the layout half has stopped.
func (s *rowSink) ended(buf []byte) bool {
	s.b.buf = buf
	s.b.ends = append(s.b.ends, len(buf))
	if len(s.b.ends) < pipeBatchRows {
		return true
	}
	label := s.b.label
	if !s.send() || !s.take() {
		return false
	}
	s.b.label = label
	return true
}

func (s *rowSink) take() bool {
	select {
	case s.b = <-s.free:
		s.b.buf, s.b.ends, s.b.err, s.b.last = s.b.buf[:0], s.b.ends[:0], nil, false
		return true
	case <-s.stop:
		return false
	}
}

func (s *rowSink) send() bool {
	select {
	case s.out <- s.b:
		s.b = nil
		return true
	case <-s.stop:
		return false
	}
}

// endItem sends the rest of an item's rows, or the error that stopped
// them, as the item's last batch. It is false once the layout half has
// stopped.
func (s *rowSink) endItem(err error) bool {
	if s.b == nil && !s.take() {
		return false
	}
	s.b.err, s.b.last = err, true
	return s.send()
}

// pipeRows lays into tree, in order, the rows encode hands its sink, with
// encode running on a goroutine of its own. encode must check the rows'
// key order itself (a keyOrder of its own, or a typed check): the tree
// takes them as ordered. It returns the first error of either half,
// prefixed with the label the failing rows were begun with; encode's
// work is done when it returns.
func pipeRows(tree *bulkTree, rowMax int, encode func(s *rowSink) error) error {
	return pipeItems(tree, rowMax, 1, 1, func(_ int, s *rowSink) error { return encode(s) })
}

// pipeItems is pipeRows for rows that come in n items (metric series)
// whose encodings are independent: item k is encoded by encode(k, s) on
// worker k % workers, and the items are laid out in order, so the bytes
// are those one encoder makes. Each item's key order is encode's to
// check; that the items' keys follow one another is the caller's.
func pipeItems(tree *bulkTree, rowMax, n, workers int, encode func(k int, s *rowSink) error) error {
	workers = max(1, min(workers, n))
	stop := make(chan struct{})
	frees := make([]chan *encodedBatch, workers)
	outs := make([]chan *encodedBatch, workers)
	var wg sync.WaitGroup
	for w := range workers {
		free, out := make(chan *encodedBatch, pipeBatches), make(chan *encodedBatch, pipeBatches)
		for range pipeBatches {
			// Sized for the longest rows up front: no batch grows as it fills.
			free <- &encodedBatch{buf: make([]byte, 0, pipeBatchRows*rowMax), ends: make([]int, 0, pipeBatchRows)}
		}
		frees[w], outs[w] = free, out
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(out)
			s := &rowSink{free: free, out: out, stop: stop}
			for k := w; k < n; k += workers {
				err := encode(k, s)
				if !s.endItem(err) || err != nil {
					return
				}
			}
		}()
	}
	var first error
	for k := 0; k < n && first == nil; k++ {
		ended := false
		for b := range outs[k%workers] {
			first = b.err
			from := 0
			for _, end := range b.ends {
				if first != nil {
					break
				}
				first = tree.addOrdered(b.buf[from:end])
				from = end
			}
			if first != nil && b.label != "" {
				first = fmt.Errorf("%s: %w", b.label, first)
			}
			ended = b.last
			frees[k%workers] <- b // never blocks: free holds every batch there is
			if ended || first != nil {
				break
			}
		}
		if !ended && first == nil {
			first = fmt.Errorf("the rows of item %d of %d ended early", k, n)
		}
	}
	close(stop)
	wg.Wait()
	return first
}
