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
	// Threads are numbered per profile, in the order the profile lists
	// them and then as ranges and samples first name them: a global thread
	// id takes 8 bytes in every row, its number one or two.
	threads := make([]map[int64]int, len(d.Profiles))
	var threadRows [][6]any
	threadOf := func(i int, gtid int64) int {
		if k, ok := threads[i][gtid]; ok {
			return k
		}
		k := len(threads[i])
		threads[i][gtid] = k
		threadRows = append(threadRows, [6]any{d.Profiles[i].ID, k, gtid, model.PID(gtid), model.TID(gtid), nil})
		return k
	}
	for i := range d.Profiles {
		threads[i] = map[int64]int{}
		for _, th := range d.Profiles[i].Threads {
			if _, seen := threads[i][th.GlobalTID]; !seen {
				threadOf(i, th.GlobalTID)
				threadRows[len(threadRows)-1][5] = opt(th.Name)
			}
		}
	}
	var durations [][3]any
	if err := w.table("nvtx_ranges", 7, func(ins *inserter) error {
		type row struct {
			bucket     int
			start, end float64
			k          int
		}
		var rows []row
		for i := range d.Profiles {
			p := &d.Profiles[i]
			rows = rows[:0]
			longest := map[int]float64{}
			for k, r := range p.Ranges {
				start, end := w.seconds(p.UTCNS(r.StartNS)), w.seconds(p.UTCNS(r.EndNS))
				b := DurationBucket(end - start)
				longest[b] = max(longest[b], end-start)
				rows = append(rows, row{b, start, end, k})
			}
			// In key order, so the table's pages fill up (a third smaller
			// than inserting in start order across duration classes).
			slices.SortFunc(rows, func(a, b row) int {
				return cmp.Or(cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.start, b.start),
					cmp.Compare(p.Ranges[a.k].RowID, p.Ranges[b.k].RowID))
			})
			for _, x := range rows {
				r := &p.Ranges[x.k]
				if err := ins.add(p.ID, x.bucket, x.start, x.end, r.Name, threadOf(i, r.GlobalTID), r.RowID); err != nil {
					return err
				}
			}
			for _, b := range sortedKeys(longest) {
				durations = append(durations, [3]any{p.ID, b, longest[b]})
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := w.table("nvtx_durations", 3, func(ins *inserter) error {
		for _, r := range durations {
			if err := ins.add(r[0], r[1], r[2]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := w.table("cpu_samples", 6, func(ins *inserter) error {
		for i := range d.Profiles {
			p := &d.Profiles[i]
			if p.CPU == nil {
				continue
			}
			for k, s := range p.CPU.Samples {
				if err := ins.add(p.ID, w.seconds(p.UTCNS(s.TimeNS)), k, threadOf(i, s.GlobalTID), s.Stack, s.ID); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := w.table("nvtx_threads", 6, func(ins *inserter) error {
		for _, r := range threadRows {
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

// DurationBucket is an NVTX range's duration class, ceil(log2(max(d, 1 ns)))
// for a duration d in seconds: an overlap query reads, per class, only the
// starts that class's longest range can reach back from.
func DurationBucket(d float64) int {
	return int(math.Ceil(math.Log2(max(d, 1e-9))))
}
