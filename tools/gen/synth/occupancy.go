package synth

import (
	"cmp"
	"slices"
	"sort"
)

// Occupancy of the deployment over time, derived from the attempts'
// engine stages: how many requests each worker rank was queueing,
// prefilling, sending or decoding at any instant, and how many tokens they
// held. Batch log lines and Tachometer gauges read these counts, so what
// they report is what the plan implies.

// load counts the intervals open at an instant and sums their weights.
type load struct {
	starts, ends []int64
	wStart, wEnd []float64 // cumulative weights in starts and ends order
	pending      []weighted
}

type weighted struct {
	iv interval
	w  float64
}

func (l *load) add(iv interval, w float64) {
	if iv.end > iv.start {
		l.pending = append(l.pending, weighted{iv, w})
	}
}

// seal sorts the intervals; add must not be called afterwards.
func (l *load) seal() {
	n := len(l.pending)
	l.starts, l.ends = make([]int64, n), make([]int64, n)
	l.wStart, l.wEnd = make([]float64, n), make([]float64, n)
	slices.SortFunc(l.pending, func(a, b weighted) int { return cmp.Compare(a.iv.start, b.iv.start) })
	var cum float64
	for i, p := range l.pending {
		cum += p.w
		l.starts[i], l.wStart[i] = p.iv.start, cum
	}
	slices.SortFunc(l.pending, func(a, b weighted) int { return cmp.Compare(a.iv.end, b.iv.end) })
	cum = 0
	for i, p := range l.pending {
		cum += p.w
		l.ends[i], l.wEnd[i] = p.iv.end, cum
	}
	l.pending = nil
}

// upTo returns how many of sorted are <= t.
func upTo(sorted []int64, t int64) int {
	return sort.Search(len(sorted), func(i int) bool { return sorted[i] > t })
}

// at returns the number of intervals open at t (start <= t < end) and the
// sum of their weights.
func (l *load) at(t int64) (int, float64) {
	s, e := upTo(l.starts, t), upTo(l.ends, t)
	var w float64
	if s > 0 {
		w = l.wStart[s-1]
	}
	if e > 0 {
		w -= l.wEnd[e-1]
	}
	return s - e, max(0, w)
}

// count is at without the weight.
func (l *load) count(t int64) int { return upTo(l.starts, t) - upTo(l.ends, t) }

// nextStart returns the first interval start after t, or false.
func (l *load) nextStart(t int64) (int64, bool) {
	i := upTo(l.starts, t)
	if i == len(l.starts) {
		return 0, false
	}
	return l.starts[i], true
}

// rankLoad is the occupancy of one engine rank (a DP rank, or the whole
// engine when it runs without DP attention).
type rankLoad struct {
	// Prefill: waiting for the handshake, queued, in forward (weight: new
	// tokens), sending KV.
	bootstrap, queue, forward, inflight load
	// Decode: waiting for KV space, receiving KV, queued, decoding
	// (weights: context tokens; and, in gen, tokens per second).
	prealloc, transfer, dqueue, running, gen load
	// batches are the prefill forward batches, in time order.
	batches []prefillBatch
}

// prefillBatch is one logged prefill forward: requests whose forward
// started within batchWindow of the first.
type prefillBatch struct {
	t             int64
	seqs          int
	newTk, cached int
}

const batchWindow = 2 * milli

// occupancy holds every rank's load and the frontend's.
type occupancy struct {
	ranks [][]rankLoad // [worker][rank]
	// inflight counts requests between the frontend receiving them and
	// completing the response; queued those not yet dispatched to prefill.
	inflight, queued load
	starts           [][][]prefillStart // [worker][rank], gathered before batching
}

type prefillStart struct {
	t             int64
	newTk, cached int
}

// newOccupancy walks every attempt once.
func newOccupancy(sv *serving) *occupancy {
	d := sv.d
	o := &occupancy{ranks: make([][]rankLoad, len(d.workers)), starts: make([][][]prefillStart, len(d.workers))}
	for w := range d.workers {
		o.ranks[w] = make([]rankLoad, d.workers[w].dp)
		o.starts[w] = make([][]prefillStart, d.workers[w].dp)
	}
	tl := newTimeliner(sv)
	var att []attempt
	for i := range sv.p.Requests {
		r := &sv.p.Requests[i]
		s := &sv.reqs[i]
		att = tl.attempts(i, att[:0])
		for k := range att {
			a := &att[k]
			if !a.received() {
				continue
			}
			clip := func(from, to int64) interval { return interval{from, min(to, a.cut)} }
			o.inflight.add(interval{a.recv, a.http.end}, 1)
			o.queued.add(clip(a.recv, a.stages[rolePrefill].entry), 1)
			pf := &a.stages[rolePrefill]
			if pf.entry < a.cut {
				rl := &o.ranks[s.prefill][s.pdp]
				newTk := r.InputTokens - r.CachedTokens
				rl.bootstrap.add(clip(pf.entry, pf.bootstrapEnd), 1)
				rl.queue.add(clip(pf.bootstrapEnd, pf.queueEnd), float64(newTk))
				rl.forward.add(clip(pf.queueEnd, pf.forwardEnd), float64(newTk))
				rl.inflight.add(clip(pf.forwardEnd, pf.transferEnd), 1)
				if pf.queueEnd < a.cut {
					o.starts[s.prefill][s.pdp] = append(o.starts[s.prefill][s.pdp], prefillStart{pf.queueEnd, newTk, r.CachedTokens})
				}
			}
			dc := &a.stages[roleDecode]
			if dc.entry < a.cut {
				rl := &o.ranks[s.decode][s.ddp]
				rl.prealloc.add(clip(dc.bootstrapEnd, dc.allocEnd), 1)
				rl.transfer.add(clip(dc.allocEnd, dc.transferEnd), float64(r.InputTokens))
				rl.dqueue.add(clip(dc.transferEnd, dc.queueEnd), 1)
				run := clip(dc.queueEnd, dc.forwardEnd)
				rl.running.add(run, float64(r.InputTokens)+float64(r.OutputTokens)/2)
				if run.end > run.start {
					rl.gen.add(run, float64(r.OutputTokens)/(float64(run.end-run.start)/1e9))
				}
			}
		}
	}
	o.inflight.seal()
	o.queued.seal()
	for w := range o.ranks {
		for k := range o.ranks[w] {
			rl := &o.ranks[w][k]
			for _, l := range []*load{&rl.bootstrap, &rl.queue, &rl.forward, &rl.inflight, &rl.prealloc, &rl.transfer, &rl.dqueue, &rl.running, &rl.gen} {
				l.seal()
			}
			rl.batches = groupBatches(o.starts[w][k])
		}
	}
	o.starts = nil
	return o
}

func groupBatches(starts []prefillStart) []prefillBatch {
	slices.SortFunc(starts, func(a, b prefillStart) int { return cmp.Compare(a.t, b.t) })
	var out []prefillBatch
	for _, s := range starts {
		if n := len(out); n > 0 && s.t-out[n-1].t < batchWindow {
			out[n-1].seqs++
			out[n-1].newTk += s.newTk
			out[n-1].cached += s.cached
			continue
		}
		out = append(out, prefillBatch{t: s.t, seqs: 1, newTk: s.newTk, cached: s.cached})
	}
	return out
}

// worker sums a load over a worker's ranks at t.
func (o *occupancy) worker(w int, pick func(*rankLoad) *load, t int64) (int, float64) {
	var n int
	var sum float64
	for k := range o.ranks[w] {
		c, s := pick(&o.ranks[w][k]).at(t)
		n += c
		sum += s
	}
	return n, sum
}
