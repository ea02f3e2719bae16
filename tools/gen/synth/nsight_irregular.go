package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dsight/dsight/internal/nsys/nsystest"
)

// Irregular worker exports (Config.NsightIrregular): the regular ones are
// back-to-back iterations of fixed stages, which compress to a few bytes a
// range and say little about a real profile's report size. These vary
// what a real one varies: each iteration's busy share and stage split
// (log-normal durations, so uneven gaps), an enclosing event-loop range
// with the stages nested inside, about 1,300 distinct selected names
// (batch sizes and prefill chunks in the name, as engines annotate them),
// two KV-transfer threads and operator ranges outside every category on
// two more threads (counted as unselected).

const nsightIrregularStream = 0x1e9a_0000_0000_0000

// irregularRowsPerIteration is a little under the mean rows an iteration
// writes (about 5.75).
const irregularRowsPerIteration = 5

func (sv *serving) nsightWorkerIrregular(w int) nsystest.Export {
	e := sv.nsightCapture()
	wk := &sv.d.workers[w]
	e.Host = wk.hosts[0]
	rng := rand.New(rand.NewPCG(sv.p.Config.Seed, nsightIrregularStream|uint64(w)))
	sched, ops, comm := packTID(wk.pid, wk.pid), packTID(wk.pid, wk.pid+7), packTID(wk.pid, wk.pid+9)
	kv := [2]int64{packTID(wk.pid, wk.pid+3), packTID(wk.pid, wk.pid+4)}
	e.Threads = []nsystest.Thread{{GlobalTID: sched, Name: "scheduler"}, {GlobalTID: kv[0], Name: "kv-transfer-0"},
		{GlobalTID: kv[1], Name: "kv-transfer-1"}, {GlobalTID: ops, Name: "pt_autograd_0"}, {GlobalTID: comm, Name: "nccl-proxy"}}
	loop, recv, batch, result := "scheduler.event_loop_overlap", "scheduler.recv_requests", "scheduler.run_batch bs=%d", "scheduler.process_batch_result"
	if wk.engine == engineTokenSpeed {
		loop, recv, batch, result = "forward_step "+wk.role+" loop", "update_runtime_state", "forward_step "+wk.role+" bs=%d", "loop:commit"
	}
	batchNames := make([]string, 256)
	for k := range batchNames {
		batchNames[k] = fmt.Sprintf(batch, k+1)
	}
	chunkNames := make([]string, 1024)
	for k := range chunkNames {
		chunkNames[k] = fmt.Sprintf("scheduler.send_kv chunk=%d", k+1)
	}
	opNames := []string{"aten::mm", "aten::addmm", "aten::softmax", "cudaGraphLaunch", "aten::copy_", "flashinfer::decode"}
	run := sv.p.EndNS() - sv.p.OriginNS
	iters := max(int64(1), run/20_000_000)
	limit := int64(math.MaxInt64)
	if n := sv.p.Config.NsightRanges; n > 0 {
		// A few more slots than the mean needs: the export stops at n rows.
		iters, limit = max(1, n/irregularRowsPerIteration*11/10), n
	}
	period := max(int64(1_000), run/iters)
	// lognormal is a duration share around mean, spread as real stage
	// times are (a long tail).
	lognormal := func(mean float64) float64 { return mean * math.Exp(0.6*rng.NormFloat64()-0.18) }
	add := func(s, end int64, name string, tid int64) bool {
		if int64(len(e.Ranges)) >= limit {
			return false
		}
		e.Ranges = append(e.Ranges, nsystest.Range{Start: s, End: nsystest.End(max(s+1, end)), Name: name, GlobalTID: tid})
		return true
	}
	bs := 32
	for k := range iters {
		s0 := nsightLead + k*period
		busy := int64(float64(period) * min(0.97, max(0.2, lognormal(0.6))))
		at := s0 + rng.Int64N(max(1, period-busy))
		if !add(at, at+busy, loop, sched) {
			break
		}
		bs = min(256, max(1, bs+rng.IntN(9)-4))
		// Three stages split the busy time unevenly, with short gaps.
		shares := [3]float64{lognormal(0.1), lognormal(0.7), lognormal(0.2)}
		sum := shares[0] + shares[1] + shares[2]
		t := at
		for j, name := range []string{recv, batchNames[bs-1], result} {
			d := int64(float64(busy) * 0.9 * shares[j] / sum)
			if !add(t, t+d, name, sched) {
				break
			}
			t += d + int64(float64(busy)*0.1/3*rng.Float64())
		}
		// Operator ranges inside the batch, outside every category.
		for range rng.IntN(3) {
			o := at + rng.Int64N(max(1, busy))
			add(o, min(at+busy, o+int64(lognormal(float64(busy)/20))), opNames[rng.IntN(len(opNames))], ops)
		}
		if rng.IntN(4) == 0 {
			o := at + rng.Int64N(max(1, busy))
			add(o, min(s0+period, o+int64(lognormal(float64(busy)/8))), "nccl:all_reduce", comm)
		}
		// KV transfers of prefill chunks, on their own thread.
		if rng.IntN(2) == 0 {
			o := at + rng.Int64N(max(1, busy))
			add(o, min(s0+period, o+int64(lognormal(float64(period)/4))), chunkNames[rng.IntN(len(chunkNames))], kv[rng.IntN(2)])
		}
	}
	return e
}
