package sqlstore

import (
	"cmp"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/model"
)

// nvtxDataset is one Nsight profile of n ranges shaped like an engine's
// export: starts ascending with some repeated, durations spread over eight
// decades (so over ~27 duration classes), eight threads, twelve names,
// rowids not in start order. The ranges are in the model's order (start,
// end descending, rowid).
func nvtxDataset(n int, seed uint64) *model.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	rs := make([]model.NVTXRange, n)
	t := int64(0)
	for k := range rs {
		if rng.IntN(8) != 0 { // one start in eight repeats the previous one
			t += 1 + rng.Int64N(2_000)
		}
		d := int64(1) << rng.IntN(27)
		d += rng.Int64N(d)
		rs[k] = model.NVTXRange{StartNS: t, EndNS: t + d, GlobalTID: 7<<24 | int64(100+rng.IntN(8)),
			RowID: int64(n - k + rng.IntN(3)*n), Name: int32(rng.IntN(12))}
	}
	sortRanges(rs)
	names := make([]string, 12)
	for i := range names {
		names[i] = "range " + strconv.Itoa(i)
	}
	return &model.Dataset{
		Meta: model.Meta{Job: "j", OriginNS: 1_000_000_000_000, DurationNS: t + 1<<28, Phase: "profiling"},
		Profiles: []model.Profile{{ID: 0, File: "p.sqlite", Worker: "decode-0", EpochNS: 1_000_000_000_000, Names: names,
			Threads: []model.ProfileThread{{GlobalTID: 7<<24 | 100}, {GlobalTID: 7<<24 | 101}}, Ranges: rs}},
	}
}

// BenchmarkNVTXStore writes the store of one profile of 1,000,000 NVTX
// ranges (DSIGHT_BENCH_RANGES to change it): the NVTX table's b-tree is
// nearly all of it. B/op and allocs/op are the numbers to compare on a
// shared machine.
//
//	go test -run '^$' -bench NVTXStore -benchmem ./internal/sqlstore
func BenchmarkNVTXStore(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("DSIGHT_BENCH_RANGES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	d := nvtxDataset(n, 1)
	dir := b.TempDir()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := filepath.Join(dir, strconv.Itoa(i)+".sqlite")
		if _, err := Write(p, d); err != nil {
			b.Fatal(err)
		}
		os.Remove(p)
	}
	b.ReportMetric(float64(n), "ranges")
}

// sortRanges puts ranges in the model's order: start, end descending, rowid.
func sortRanges(rs []model.NVTXRange) {
	slices.SortFunc(rs, func(a, b model.NVTXRange) int {
		return cmp.Or(cmp.Compare(a.StartNS, b.StartNS), cmp.Compare(b.EndNS, a.EndNS), cmp.Compare(a.RowID, b.RowID))
	})
}

// BenchmarkNVTXEncode runs the encoding half of the nvtx_ranges hand-over
// alone (nvtxpipe.go) on a profile of 1,000,000 ranges, batches handed
// straight back: ordering, checking and encoding the rows, without the
// b-tree or the file. It is the longer half of a large Nsight store.
//
//	go test -run '^$' -bench NVTXEncode -benchmem ./internal/sqlstore
func BenchmarkNVTXEncode(b *testing.B) {
	d := nvtxDataset(1_000_000, 1)
	b.ReportAllocs()
	cpu0, n := cpuSeconds(), 0
	for b.Loop() {
		n++
		w := &writer{origin: d.Meta.OriginNS, threads: []map[int64]int{{}}}
		free := make(chan *encodedBatch, pipeBatches)
		for range pipeBatches {
			free <- &encodedBatch{buf: make([]byte, 0, pipeBatchRows*len(nvtxRow{}.buf)), ends: make([]int, 0, pipeBatchRows)}
		}
		out := make(chan *encodedBatch, pipeBatches)
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			for bt := range out {
				free <- bt
			}
		}()
		s := &rowSink{free: free, out: out, stop: make(chan struct{})}
		if err := w.encodeNVTX(d, true, s); err != nil {
			b.Fatal(err)
		}
		close(out)
		<-drained
	}
	// CPU time, not wall time, is the number to compare on a shared box.
	b.ReportMetric((cpuSeconds()-cpu0)/float64(n), "cpu-s/op")
}

// cpuSeconds is the process's user and system time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
