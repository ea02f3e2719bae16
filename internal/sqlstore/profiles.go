package sqlstore

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dsight/dsight/internal/model"
)

func (w *writer) profiles(d *model.Dataset) error {
	if err := w.table("profiles", 17, func(ins *inserter) error {
		for i := range d.Profiles {
			p := &d.Profiles[i]
			cpu := 0
			if p.CPU != nil {
				cpu = len(p.CPU.Samples)
			}
			if err := ins.add(p.ID, p.Source, p.File, boolInt(p.Mapped), p.Worker, opt(p.Role), opt(p.Index), opt(p.Engine), opt(p.Rank),
				opt(p.GPUs), opt(p.Host), strconv.FormatInt(p.EpochNS, 10), len(p.Ranges), p.Counts.Selected, p.Limit,
				boolInt(p.Truncated), cpu); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := w.table("nvtx_names", 3, func(ins *inserter) error {
		for i := range d.Profiles {
			for k, name := range d.Profiles[i].Names {
				if err := ins.add(d.Profiles[i].ID, k, name); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := w.table("nvtx_durations", 3, func(ins *inserter) error {
		for _, r := range w.durations {
			if err := ins.add(r[0], r[1], r[2]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := w.table("nvtx_threads", 6, func(ins *inserter) error {
		for _, r := range w.threadRows {
			if err := ins.add(r[:]...); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return w.table("cpu_frames", 4, func(ins *inserter) error {
		for i := range d.Profiles {
			p := &d.Profiles[i]
			if p.CPU == nil {
				continue
			}
			for s, stack := range p.CPU.Stacks {
				for depth, sym := range stack {
					if sym < 0 || int(sym) >= len(p.CPU.Symbols) {
						return fmt.Errorf("profile %s: stack %d names symbol %d of %d", p.File, s, sym, len(p.CPU.Symbols))
					}
					if err := ins.add(p.ID, s, depth, p.CPU.Symbols[sym]); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// threadOf numbers a profile's thread as it is first named: in the order
// the profile lists its threads, then as ranges and samples name them. A
// global thread id takes 8 bytes in every row, its number one or two.
func (w *writer) threadOf(d *model.Dataset, i int, gtid int64) int {
	if k, ok := w.threads[i][gtid]; ok {
		return k
	}
	k := len(w.threads[i])
	w.threads[i][gtid] = k
	w.threadRows = append(w.threadRows, [6]any{d.Profiles[i].ID, k, gtid, model.PID(gtid), model.TID(gtid), nil})
	return k
}

// nvtxRanges writes the nvtx_ranges b-tree, profile by profile in key
// order, numbering threads and keeping each duration class's longest
// range for the tables SQLite writes after it.
func (w *writer) nvtxRanges(d *model.Dataset, bf *bulkFile) error {
	w.threads = make([]map[int64]int, len(d.Profiles))
	for i := range d.Profiles {
		w.threads[i] = map[int64]int{}
		for _, th := range d.Profiles[i].Threads {
			if _, seen := w.threads[i][th.GlobalTID]; !seen {
				w.threadOf(d, i, th.GlobalTID)
				w.threadRows[len(w.threadRows)-1][5] = opt(th.Name)
			}
		}
	}
	tree, err := bf.tree("nvtx_ranges")
	if err != nil {
		return err
	}
	if err := w.addNVTX(d, bf.intSmall, tree); err != nil {
		return err
	}
	return bf.done("nvtx_ranges", tree)
}

// byID is the positions of s in ascending id order, the order a bulk
// table's key needs.
func byID[T any](s []T, id func(*T) int) []int {
	out := make([]int, len(s))
	for i := range out {
		out[i] = i
	}
	slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(id(&s[a]), id(&s[b])) })
	return out
}

// DurationBucket is an NVTX range's duration class, ceil(log2(max(d, 1 ns)))
// for a duration d in seconds: an overlap query reads, per class, only the
// starts that class's longest range can reach back from.
func DurationBucket(d float64) int {
	return int(math.Ceil(math.Log2(max(d, 1e-9))))
}
