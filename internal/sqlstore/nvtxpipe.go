package sqlstore

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"
)

// The nvtx_ranges table is most of an Nsight build's store, and its rows
// are made in two halves of about equal cost: putting each profile's ranges
// in key order and encoding them, then laying the encoded rows into the
// b-tree and writing its pages. The halves run on two goroutines, handing
// rows over in batches, so the store's critical path on a two-core machine
// is about the longer half rather than their sum. The rows, their order and
// so the file's bytes are the same as one goroutine would make.

// nvtxBatchRows is how many encoded rows a batch holds: large enough that
// the hand-over costs nothing per row, small enough that the few batches in
// flight stay a few hundred kilobytes.
const nvtxBatchRows = 4096

// nvtxBatches is how many batches circulate between the two halves.
const nvtxBatches = 4

// nvtxBatch is a run of encoded nvtx_ranges rows of one profile, in key
// order, or the error that stopped the encoding.
type nvtxBatch struct {
	file string // the profile's file, for errors
	buf  []byte // the rows' records, back to back
	ends []int  // where each row ends in buf
	err  error
}

func (b *nvtxBatch) reset(file string) {
	b.file, b.buf, b.ends, b.err = file, b.buf[:0], b.ends[:0], nil
}

// encodeNVTX is the first half: every profile's ranges in key order,
// encoded, sent in batches taken from free until stop is closed. It alone
// touches w while it runs (thread numbers, duration classes).
func (w *writer) encodeNVTX(d *model.Dataset, intSmall bool, free <-chan *nvtxBatch, out chan<- *nvtxBatch, stop <-chan struct{}) {
	defer close(out)
	send := func(b *nvtxBatch) bool {
		select {
		case out <- b:
			return true
		case <-stop:
			return false
		}
	}
	take := func() *nvtxBatch {
		select {
		case b := <-free:
			return b
		case <-stop:
			return nil
		}
	}
	row := nvtxRow{intSmall: intSmall}
	var order nvtxOrder
	var threads threadIndex
	for _, i := range byID(d.Profiles, func(p *model.Profile) int { return p.ID }) {
		p := &d.Profiles[i]
		b := take()
		if b == nil {
			return
		}
		b.reset(p.File)
		// In key order: the b-tree is laid out from sorted rows.
		perm, err := order.build(w, p)
		if err != nil {
			b.err = err
			send(b)
			return
		}
		threads.reset(w.threads[i])
		for _, k := range perm {
			r := &p.Ranges[k]
			startNS, durNS := p.UTCNS(r.StartNS)-w.origin, r.EndNS-r.StartNS
			start := float64(startNS) / 1e9 // w.seconds
			// The end is only divided out where the cheap check cannot
			// vouch for the computed one.
			var end float64
			exact := false
			if !endComputedFast(start, startNS, durNS) {
				end = w.seconds(p.UTCNS(r.EndNS))
				exact = !endIsComputed(start, end, durNS)
			}
			// Key columns first, then the stored others in declared order.
			buf, err := row.appendRow(b.buf, nvtxKey{int64(p.ID), int64(order.bucket[k]), start, r.RowID},
				int64(r.Name), int64(threads.of(w, d, i, r.GlobalTID)), durNS, end, exact)
			if err != nil {
				b.err = err
				send(b)
				return
			}
			b.buf = buf
			b.ends = append(b.ends, len(b.buf))
			if len(b.ends) == nvtxBatchRows {
				if !send(b) {
					return
				}
				if b = take(); b == nil {
					return
				}
				b.reset(p.File)
			}
		}
		if !send(b) {
			return
		}
		w.durations = order.durations(p.ID, w.durations)
	}
}

// addNVTX is the second half: the encoded rows into tree, in the order
// encodeNVTX made them. It returns the first error of either half.
func (w *writer) addNVTX(d *model.Dataset, intSmall bool, tree *bulkTree) error {
	free := make(chan *nvtxBatch, nvtxBatches)
	for range nvtxBatches {
		// Sized for the longest rows up front: no batch grows as it fills.
		free <- &nvtxBatch{buf: make([]byte, 0, nvtxBatchRows*len(nvtxRow{}.buf)), ends: make([]int, 0, nvtxBatchRows)}
	}
	out := make(chan *nvtxBatch, nvtxBatches)
	stop := make(chan struct{})
	go w.encodeNVTX(d, intSmall, free, out, stop)
	var first error
	for b := range out {
		if first == nil {
			first = b.err
			from := 0
			for _, end := range b.ends {
				if first != nil {
					break
				}
				first = tree.addOrdered(b.buf[from:end])
				from = end
			}
			if first != nil {
				first = fmt.Errorf("profile %s: %w", b.file, first)
				close(stop)
			}
		}
		free <- b // never blocks: free holds every batch there is
	}
	return first
}
