package query

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/dsight/dsight/internal/model"
)

// IterationAttribution is said with every iterations answer: what a batch
// observation can and cannot tell.
const IterationAttribution = "Batch observations describe a worker's shared engine batches on one rank (TRT-LLM iteration records; " +
	"TokenSpeed periodic scheduler snapshots, which are not forward iterations). They are not attributed to requests: " +
	"no share of batch time is assigned to any request. Counters are as logged: iteration counters and previous-device " +
	"timers can lag the forward pass under overlap scheduling, and no shift is applied."

// Iterations is the "iterations" answer: aligned observations overlapping
// the range (total counts them), and how many matching observations have
// no aligned time (no --iteration-timezone for their naive timestamps).
type Iterations struct {
	Total         int         `json:"total"`
	UnalignedRows int         `json:"unaligned_rows"`
	Range         [2]float64  `json:"range"`
	Offset        int         `json:"offset"`
	Limit         int         `json:"limit"`
	Items         []BatchItem `json:"items"`
	Attribution   string      `json:"attribution"`
	Timezone      *string     `json:"iteration_timezone"`
}

// BatchItem is one observation as answers show it; see MarshalJSON.
type BatchItem struct {
	e *Engine
	i int
}

// maxBatchResolutionNS bounds an observation's length (one-second stamps),
// so the scan can start at the first row that could reach the range.
const maxBatchResolutionNS = 1_000_000_000

// iterations answers the "iterations" kind. Rows are stored aligned first,
// by start; the range scan binary-searches them.
func (e *Engine) iterations(a Args) (Iterations, error) {
	w, err := e.window(a)
	if err != nil {
		return Iterations{}, err
	}
	offset, limit := page(a)
	b := &e.c.Batch
	out := Iterations{Range: w.json(), Offset: offset, Limit: limit, Items: []BatchItem{}, Attribution: IterationAttribution,
		Timezone: optString(e.c.Meta.IterationTimezone)}
	match := func(i int) bool {
		if a.Worker != nil && b.Worker[i] != *a.Worker {
			return false
		}
		if a.Rank != nil {
			r := b.Rank.At(i)
			if r == nil || strconv.FormatInt(*r, 10) != *a.Rank {
				return false
			}
		}
		return true
	}
	aligned := sort.Search(b.N, func(i int) bool { return b.Start.At(i) == nil })
	for i := aligned; i < b.N; i++ {
		if match(i) {
			out.UnalignedRows++
		}
	}
	lo := sort.Search(aligned, func(i int) bool { return b.Start.V[i] >= w.fromNS-maxBatchResolutionNS })
	for i := lo; i < aligned && b.Start.V[i] <= w.toNS; i++ {
		// An observation covers [start, start+resolution): a one-second
		// stamp ending exactly at from does not overlap it.
		if start := b.Start.V[i]; start < w.fromNS && start+e.batchResolution(i) <= w.fromNS || !match(i) {
			continue
		}
		if out.Total >= offset && len(out.Items) < limit {
			out.Items = append(out.Items, BatchItem{e, i})
		}
		out.Total++
	}
	return out, nil
}

func (e *Engine) batchResolution(i int) int64 {
	d := e.c.Batch.FracDigits[i]
	if d > 9 {
		return 0
	}
	ns := int64(1_000_000_000)
	for range d {
		ns /= 10
	}
	return ns
}

// checkBatchOrder verifies what the scan relies on: aligned rows first, in
// start order, each no longer than a second.
func (e *Engine) checkBatchOrder() bool {
	b := &e.c.Batch
	seenUnaligned := false
	for i := range b.N {
		s := b.Start.At(i)
		switch {
		case s == nil:
			seenUnaligned = true
		case seenUnaligned, i > 0 && b.Start.At(i-1) != nil && *b.Start.At(i - 1) > *s, e.batchResolution(i) > maxBatchResolutionNS:
			return false
		}
	}
	return true
}

// MarshalJSON writes the observation's fields in a fixed order: identity,
// time, then every counter by name (null when the line did not record it).
func (it BatchItem) MarshalJSON() ([]byte, error) {
	b, i, f := &it.e.c.Batch, it.i, it.e.frame()
	var buf bytes.Buffer
	first := true
	put := func(key string, v any) {
		if !first {
			buf.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		buf.Write(k)
		buf.WriteByte(':')
		raw, err := json.Marshal(v)
		if err != nil {
			raw = []byte("null")
		}
		buf.Write(raw)
	}
	buf.WriteByte('{')
	kind := b.Kind[i]
	put("kind", kind)
	put("backend", map[string]string{model.BatchTRTLLMIteration: "trtllm", model.BatchTokenSpeedSnapshot: "tokenspeed"}[kind])
	put("format", b.Format[i])
	put("worker", b.Worker[i])
	put("host", b.Host[i])
	put("role", b.Role[i])
	put("rank", b.Rank.At(i))
	put("rank_kind", b.RankKind[i])
	var global *int64
	if b.RankKind[i] == model.RankGlobal {
		global = b.Rank.At(i)
	}
	put("global_rank", global)
	put("local_rank", b.LocalRank.At(i))
	put("batch_kind", b.BatchKind.At(i))
	put("iteration", b.Iteration.At(i))
	put("local_time", b.LocalTime[i])
	res := it.e.batchResolution(i)
	put("time_resolution_s", float64(res)/1e9)
	var start, end *float64
	if s := b.Start.At(i); s != nil {
		a, z := seconds(*s), seconds(*s+res)
		start, end = &a, &z
	}
	put("start", start)
	put("end", end)
	for k, name := range model.BatchIntNames {
		put(name, b.Ints[k].At(i))
	}
	for k, name := range model.BatchFloatNames {
		put(name, b.Floats[k].At(i))
	}
	put("evidence", f.evidence(b.EvidencePath[i], b.EvidenceLine[i], nil))
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
