package sqlstore

import (
	"github.com/dsight/dsight/internal/model"
)

// The nvtx_ranges table is most of an Nsight build's store. Its rows are
// put in key order and encoded on one goroutine and laid into the b-tree
// on another (pipeRows).

// encodeNVTX is the encoding half: every profile's ranges in key order,
// encoded straight into the batch they go out in. It alone touches w
// while it runs (thread numbers, duration classes).
func (w *writer) encodeNVTX(d *model.Dataset, intSmall bool, s *rowSink) error {
	row := nvtxRow{intSmall: intSmall}
	var order nvtxOrder
	var threads threadIndex
	for _, i := range byID(d.Profiles, func(p *model.Profile) int { return p.ID }) {
		p := &d.Profiles[i]
		if !s.begin("profile " + p.File) {
			return nil
		}
		// In key order: the b-tree is laid out from sorted rows.
		perm, err := order.build(w, p)
		if err != nil {
			return err
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
			buf, err := row.appendRow(s.room(), nvtxKey{int64(p.ID), int64(order.bucket[k]), start, r.RowID},
				int64(r.Name), int64(threads.of(w, d, i, r.GlobalTID)), durNS, end, exact)
			if err != nil {
				return err
			}
			if !s.ended(buf) {
				return nil
			}
		}
		w.durations = order.durations(p.ID, w.durations)
	}
	return nil
}

// addNVTX lays the encoded rows into tree, in the order encodeNVTX makes
// them. It returns the first error of either half.
func (w *writer) addNVTX(d *model.Dataset, intSmall bool, tree *bulkTree) error {
	return pipeRows(tree, len(nvtxRow{}.buf), func(s *rowSink) error { return w.encodeNVTX(d, intSmall, s) })
}
