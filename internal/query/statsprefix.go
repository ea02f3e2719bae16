package query

import (
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/sessionmetrics"
)

// A wide range's request counts come from running totals over the requests
// in start order, built with the statistics orders: every request that
// starts inside the range overlaps it, so only those that start before it
// (and may reach into it) and those near its end (whose active span may
// pass it) are visited one by one. Under wasm the visit of every request
// in a whole-run range was most of an answer.

// requestPrefix holds, for every k, the totals over requests [0, k).
type requestPrefix struct {
	completed, errors, cancelled, ttftUnknown []int32
	// input and output are the recorded token counts' sums, inputN and
	// outputN how many requests recorded one.
	input, output   []int64
	inputN, outputN []int32
	done            bitset // the completed requests
}

// newRequestPrefix builds the totals of the engine's requests.
func (e *Engine) newRequestPrefix() requestPrefix {
	r := e.r
	n := r.N
	p := requestPrefix{completed: make([]int32, n+1), errors: make([]int32, n+1), cancelled: make([]int32, n+1), ttftUnknown: make([]int32, n+1),
		input: make([]int64, n+1), output: make([]int64, n+1), inputN: make([]int32, n+1), outputN: make([]int32, n+1), done: newBitset(n)}
	for i := range n {
		p.completed[i+1], p.errors[i+1], p.cancelled[i+1], p.ttftUnknown[i+1] = p.completed[i], p.errors[i], p.cancelled[i], p.ttftUnknown[i]
		p.input[i+1], p.output[i+1], p.inputN[i+1], p.outputN[i+1] = p.input[i], p.output[i], p.inputN[i], p.outputN[i]
		switch r.Status[i] {
		case model.StatusCompleted:
			p.completed[i+1]++
			p.done.set(i)
			if !valid(r.TTFT.Valid, i) {
				p.ttftUnknown[i+1]++
			}
		case model.StatusError:
			p.errors[i+1]++
		case model.StatusCancelled:
			p.cancelled[i+1]++
		}
		if valid(r.InputTokens.Valid, i) {
			p.input[i+1] += r.InputTokens.V[i]
			p.inputN[i+1]++
		}
		if valid(r.OutputTokens.Valid, i) {
			p.output[i+1] += r.OutputTokens.V[i]
			p.outputN[i+1]++
		}
	}
	return p
}

// copyBits sets in dst the bits of src in [lo, hi).
func copyBits(dst, src bitset, lo, hi int) {
	for lo < hi {
		w := lo >> 6
		end := min(hi, (w+1)<<6)
		mask := ^uint64(0) << (lo & 63)
		if end&63 != 0 {
			mask &= ^uint64(0) >> (64 - end&63)
		}
		dst[w] |= src[w] & mask
		lo = end
	}
}

// requestAcc gathers one range's request statistics request by request.
// Generated tokens credited whole (an active span inside the range) are
// summed as integers, exactly; only the shares of spans the range cuts
// are fractions, summed in start order.
type requestAcc struct {
	out                *RequestStats
	w                  window
	genWhole, prefill  int64
	genPart            float64
	anyGen, anyPrefill bool
}

// add counts request i, which overlaps the range, into everything but the
// completed requests' values, and says whether it completed.
func (a *requestAcc) add(e *Engine, i int) (completed bool) {
	r, w := e.r, a.w
	a.out.Count++
	start, end := r.Start[i], r.End[i]
	if valid(r.OutputTokens.Valid, i) {
		sa, sb, _ := sessionmetrics.ActiveSpan(start, end, r.First.At(i))
		a.addGen(r.OutputTokens.V[i], sa, sb)
	}
	if valid(r.InputTokens.Valid, i) && start >= w.fromNS {
		a.prefill += r.InputTokens.V[i]
		a.anyPrefill = true
	}
	switch r.Status[i] {
	case model.StatusError:
		a.out.Errors++
	case model.StatusCancelled:
		a.out.Cancelled++
	case model.StatusCompleted:
		a.out.Completed++
		return true
	}
	return false
}

// addGen credits tok output tokens spread over the active span [sa, sb].
func (a *requestAcc) addGen(tok int64, sa, sb int64) {
	w := a.w
	a.anyGen = true
	switch lo, hi := max(sa, w.fromNS), min(sb, w.toNS); {
	case sb <= sa && sa >= w.fromNS && sa <= w.toNS, sb > sa && sa >= w.fromNS && sb <= w.toNS:
		a.genWhole += tok
	case sb > sa && hi > lo:
		a.genPart += float64(tok) * float64(hi-lo) / float64(sb-sa)
	}
}

// finish sets the range's throughput estimates.
func (a *requestAcc) finish() {
	span := seconds(a.w.toNS - a.w.fromNS)
	if a.anyGen {
		a.out.GenerationTokensPerS = fptr((float64(a.genWhole) + a.genPart) / span)
	}
	if a.anyPrefill {
		a.out.PrefillTokensPerS = fptr(float64(a.prefill) / span)
	}
}

// addWide counts the requests overlapping the range from the running
// totals, marking the completed ones in in: those starting in [lo, hi) that
// started before the range are visited, as are those that start too close to
// its end for their active span to be known to end inside it.
func (a *requestAcc) addWide(e *Engine, p *requestPrefix, in bitset, lo, hi int) {
	r, w := e.r, a.w
	s0 := lo
	for ; s0 < hi && r.Start[s0] < w.fromNS; s0++ {
		if r.End[s0] >= w.fromNS && a.add(e, s0) {
			in.set(s0)
			if !valid(r.TTFT.Valid, s0) {
				a.out.TTFTUnknown++
			}
		}
	}
	// A request starting before toNS − maxRequestDur ends, and so has its
	// active span, inside the range.
	t0 := s0 + searchStart(r.Start[s0:hi], w.toNS-e.maxRequestDur)
	a.out.Count += t0 - s0
	a.out.Completed += int(p.completed[t0] - p.completed[s0])
	a.out.Errors += int(p.errors[t0] - p.errors[s0])
	a.out.Cancelled += int(p.cancelled[t0] - p.cancelled[s0])
	a.out.TTFTUnknown += int(p.ttftUnknown[t0] - p.ttftUnknown[s0])
	if p.inputN[t0] > p.inputN[s0] {
		a.prefill += p.input[t0] - p.input[s0]
		a.anyPrefill = true
	}
	if p.outputN[t0] > p.outputN[s0] {
		a.genWhole += p.output[t0] - p.output[s0]
		a.anyGen = true
	}
	copyBits(in, p.done, s0, t0)
	for i := t0; i < hi; i++ {
		if a.add(e, i) {
			in.set(i)
			if !valid(r.TTFT.Valid, i) {
				a.out.TTFTUnknown++
			}
		}
	}
}

// searchStart is the first k with starts[k] >= t.
func searchStart(starts []int64, t int64) int {
	lo, hi := 0, len(starts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if starts[m] < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
