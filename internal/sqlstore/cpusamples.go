package sqlstore

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dsight/dsight/internal/model"
)

// cpuSamples lays out the cpu_samples b-tree, profile by profile in key
// order (profile, time, ordinal). A profile's samples usually come in
// time order already; when they do not, a permutation of them is sorted.
// It runs after nvtxRanges, so a sample's thread is numbered as the
// ranges left the profile's threads.
//
// The table went through SQLite's INSERT until an Nsight run's store
// spent more time on its CPU samples than on the b-tree pages of every
// NVTX range.
func (w *writer) cpuSamples(d *model.Dataset, bf *bulkFile) error {
	tree, err := bf.tree("cpu_samples")
	if err != nil {
		return err
	}
	rec := bf.record()
	var order []int32
	var times []float64
	for _, i := range byID(d.Profiles, func(p *model.Profile) int { return p.ID }) {
		p := &d.Profiles[i]
		if p.CPU == nil {
			continue
		}
		order, times = sampleOrder(w, p, order, times)
		for _, k := range order {
			s := &p.CPU.Samples[k]
			rec.reset()
			rec.int(int64(p.ID))
			rec.real(times[k])
			rec.int(int64(k))
			rec.int(int64(w.threadOf(d, i, s.GlobalTID)))
			rec.int(int64(s.Stack))
			rec.int(s.ID)
			if err := tree.add(rec); err != nil {
				return fmt.Errorf("profile %s: cpu sample %d: %w", p.File, k, err)
			}
		}
	}
	return bf.done("cpu_samples", tree)
}

// sampleOrder is p's samples' positions in key order (time in seconds,
// then position) and each sample's time, in buffers reused from the
// previous profile. The order is taken on the seconds the table stores:
// two samples a few nanoseconds apart may share them, and then their
// positions decide.
func sampleOrder(w *writer, p *model.Profile, order []int32, times []float64) ([]int32, []float64) {
	n := len(p.CPU.Samples)
	order, times = order[:0], times[:0]
	sorted := true
	for k := range p.CPU.Samples {
		t := w.seconds(p.UTCNS(p.CPU.Samples[k].TimeNS))
		if k > 0 && t < times[k-1] {
			sorted = false
		}
		times = append(times, t)
		order = append(order, int32(k))
	}
	if !sorted {
		// Positions start ascending and the sort is stable: equal times
		// keep them ascending.
		slices.SortStableFunc(order[:n], func(a, b int32) int { return cmp.Compare(times[a], times[b]) })
	}
	return order, times
}
