// Package trtllm decodes TensorRT-LLM iteration log lines (print_iter_log)
// into batch observations, in every field order the executor has written
// (shared/spec/input-formats.md §8):
//
//	v1 (≤2025-04)  iter, global_rank, rank, currank_total_requests, elapsed_time = S s, timestamp, states
//	v2 (2025-04)   … elapsed_time = Ss, timestamp, num_scheduled_requests: N, states
//	v3 (2025-08)   … currank_total_requests, host_step_time, prev_device_step_time, timestamp, num_scheduled_requests: N, states
//	v4 (2026-05)   iter, global_rank, rank, num_scheduled_requests = N, kv_cache_util, [currank_total_requests,] host_step_time, prev_device_step_time, timestamp, states
//	v5 (later)     v4 plus cached_kv_len and trailing num_active, num_fetched, num_dummy, num_unscheduled
//
// The states dict's keys (cached_kv_tokens joined it with v4) are content,
// not field order.
//
// Fields are read by label, not by position, so any order decodes; the
// format name only records which order the line used. Whatever logger
// prefix precedes "iter = " (the TRT-LLM logger's, an srun label) is
// ignored, and so is text after the timestamp that is not a field (for
// example an Engine ID map on the same line).
//
// Values are kept as logged: "N/A" is null, prev_device_step_time is the
// previous device step and is not shifted onto this iteration, the
// timestamp is naive worker-local time with one-second resolution. The
// rank is the global rank (kind global_rank); the logged "rank" is the
// local rank, kept apart.
//
// Imports: internal/model, internal/logmetric (the shared timestamp and
// number grammar) and the standard library.
package trtllm

import (
	"bytes"
	"errors"
	"fmt"
	"unsafe"

	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/model"
)

// Iteration is one decoded line: the observation (without the file's
// identity, alignment or evidence, which the reader adds) and its
// timestamp as written.
type Iteration struct {
	Obs   model.BatchObservation
	Stamp logmetric.Stamp
}

// ErrMalformed reports a line that is an iteration record (it starts with
// "iter = <n>, global_rank = ") but cannot be read as one.
var ErrMalformed = errors.New("malformed TRT-LLM iteration line")

var marker = []byte("iter = ")

// Decode reads one line. It returns ok=false and no error for lines that
// are not iteration records, and an error wrapping ErrMalformed (or
// logmetric.ErrInvalidStamp) for a record it cannot represent.
func Decode(line []byte) (Iteration, bool, error) {
	at := findRecord(line)
	if at < 0 {
		return Iteration{}, false, nil
	}
	it, err := decodeFields(line[at:])
	if err != nil {
		return Iteration{}, false, err
	}
	return it, true, nil
}

// findRecord returns the offset of "iter = <digits>, global_rank = ", -1
// when the line has none.
func findRecord(line []byte) int {
	for off := 0; off < len(line); {
		i := bytes.Index(line[off:], marker)
		if i < 0 {
			return -1
		}
		at := off + i
		off = at + 1
		if at > 0 && isWord(line[at-1]) {
			continue // e.g. "max_iter = "
		}
		rest := line[at+len(marker):]
		n := 0
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n > 0 && bytes.HasPrefix(rest[n:], []byte(", global_rank = ")) {
			return at
		}
	}
	return -1
}

type seen uint32

const (
	fIter seen = 1 << iota
	fGlobalRank
	fRank
	fTimestamp
	fElapsed
	fHostStep
	fScheduledColon
	fScheduledEquals
	fKVUtil
	fCurrank
	fPrevDevice
	fLater // a field added after v4
)

// arena holds one record's numbers, so a record costs one allocation
// instead of one per field.
type arena struct {
	ints   [model.NumBatchInts + 3]int64
	floats [model.NumBatchFloats]float64
	ni, nf int
}

func (a *arena) int(v int64) *int64 {
	if a.ni == len(a.ints) { // only a record that is about to fail repeats fields
		p := new(int64)
		*p = v
		return p
	}
	p := &a.ints[a.ni]
	*p = v
	a.ni++
	return p
}

func (a *arena) float(v float64) *float64 {
	if a.nf == len(a.floats) {
		p := new(float64)
		*p = v
		return p
	}
	p := &a.floats[a.nf]
	*p = v
	a.nf++
	return p
}

func decodeFields(b []byte) (Iteration, error) {
	var it Iteration
	o := &it.Obs
	a := new(arena)
	o.Kind = model.BatchTRTLLMIteration
	o.RankKind = model.RankGlobal
	var have seen
	for len(b) > 0 {
		key, sep, rest, ok := cutKey(b)
		if !ok {
			if have&fTimestamp != 0 {
				break // trailing text after the record, e.g. another message
			}
			return it, fmt.Errorf("%w: expected a field at %q", ErrMalformed, clip(b))
		}
		value, next := cutValue(rest)
		f, err := setField(o, a, &it.Stamp, key, sep, value)
		if err != nil {
			return it, err
		}
		if f != 0 && have&f != 0 && f != fLater {
			return it, fmt.Errorf("%w: %s repeated", ErrMalformed, string(key))
		}
		have |= f
		if f == fTimestamp && !fieldEnd(value[len(o.LocalTime):]) {
			return it, fmt.Errorf("%w: timestamp %q", ErrMalformed, clip(value))
		}
		if f == fTimestamp && len(value) > len(o.LocalTime) {
			break // the record ended after its timestamp; the rest is other text
		}
		b = next
	}
	for _, req := range [...]struct {
		f    seen
		name string
	}{{fIter, "iter"}, {fGlobalRank, "global_rank"}, {fRank, "rank"}, {fTimestamp, "timestamp"}} {
		if have&req.f == 0 {
			return it, fmt.Errorf("%w: no %s", ErrMalformed, req.name)
		}
	}
	o.Format = format(have)
	return it, nil
}

// format names the field order from the fields the line had.
func format(have seen) string {
	switch {
	case have&fScheduledEquals != 0 && have&fLater != 0:
		return "trtllm-v5"
	case have&fScheduledEquals != 0 || have&fKVUtil != 0:
		return "trtllm-v4"
	case have&fHostStep != 0:
		return "trtllm-v3"
	case have&fElapsed != 0 && have&fScheduledColon != 0:
		return "trtllm-v2"
	case have&fElapsed != 0:
		return "trtllm-v1"
	}
	return "trtllm"
}

// cutKey reads "<key> = " or "<key>: " at the start of b.
func cutKey(b []byte) (key []byte, sep byte, rest []byte, ok bool) {
	n := 0
	for n < len(b) && isWord(b[n]) {
		n++
	}
	if n == 0 {
		return nil, 0, nil, false
	}
	switch {
	case bytes.HasPrefix(b[n:], []byte(" = ")):
		return b[:n], '=', b[n+3:], true
	case bytes.HasPrefix(b[n:], []byte(": ")):
		return b[:n], ':', b[n+2:], true
	}
	return nil, 0, nil, false
}

// cutValue splits b at the first ", " outside braces and brackets.
func cutValue(b []byte) (value, next []byte) {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth <= 0 && i+1 < len(b) && b[i+1] == ' ' {
				return b[:i], b[i+2:]
			}
		}
	}
	return b, nil
}

// setField stores one field's value; unknown keys are ignored (later
// executor versions add fields) and return 0.
func setField(o *model.BatchObservation, a *arena, stamp *logmetric.Stamp, keyb []byte, sep byte, v []byte) (seen, error) {
	key := unsafeKey(keyb)
	bad := func() (seen, error) { return 0, fmt.Errorf("%w: %s %q", ErrMalformed, string(keyb), clip(v)) }
	integer := func(dst **int64) bool {
		n, ok := count(v)
		if ok {
			*dst = a.int(n)
		}
		return ok
	}
	// measured reads "<decimal><unit>" (v1 writes "S s"), or N/A as null.
	measured := func(dst **float64, unit string, spaced bool) bool {
		if string(v) == "N/A" {
			return true
		}
		num, ok := bytes.CutSuffix(v, []byte(unit))
		if !ok {
			return false
		}
		if spaced {
			num = bytes.TrimSuffix(num, []byte(" "))
		}
		f, ok := logmetric.ParseDecimal(num)
		if ok {
			*dst = a.float(f)
		}
		return ok
	}
	if sep == ':' && key != "num_scheduled_requests" {
		return bad()
	}
	switch key {
	case "iter":
		if !integer(&o.Iteration) {
			return bad()
		}
		return fIter, nil
	case "global_rank":
		if !integer(&o.Rank) {
			return bad()
		}
		return fGlobalRank, nil
	case "rank":
		if !integer(&o.LocalRank) {
			return bad()
		}
		return fRank, nil
	case "num_scheduled_requests":
		if !integer(&o.Ints[model.BatchRequests]) {
			return bad()
		}
		if sep == ':' {
			return fScheduledColon, nil
		}
		return fScheduledEquals, nil
	case "currank_total_requests":
		cur, tot, ok := bytes.Cut(v, []byte("/"))
		if !ok {
			return bad()
		}
		x, ok1 := count(cur)
		y, ok2 := count(tot)
		if !ok1 || !ok2 {
			return bad()
		}
		o.Ints[model.BatchCurrankRequests], o.Ints[model.BatchTotalRequests] = a.int(x), a.int(y)
		return fCurrank, nil
	case "elapsed_time":
		if !measured(&o.Floats[model.BatchElapsedS], "s", true) {
			return bad()
		}
		return fElapsed, nil
	case "host_step_time":
		if !measured(&o.Floats[model.BatchHostStepMS], "ms", false) {
			return bad()
		}
		return fHostStep, nil
	case "prev_device_step_time":
		if !measured(&o.Floats[model.BatchPrevDeviceStepMS], "ms", false) {
			return bad()
		}
		return fPrevDevice, nil
	case "kv_cache_util":
		if !measured(&o.Floats[model.BatchKVCacheUtil], "", false) {
			return bad()
		}
		return fKVUtil, nil
	case "timestamp":
		st, n := logmetric.ParseStamp(v, 0)
		if n == 0 {
			return bad()
		}
		if err := st.Validate(); err != nil {
			return 0, err
		}
		*stamp = st
		o.LocalTime = string(v[:n])
		return fTimestamp, nil
	case "states":
		return states(o, a, v)
	}
	if i, ok := laterInts[key]; ok {
		if o.Ints[i] != nil || !integer(&o.Ints[i]) {
			return bad()
		}
		return fLater, nil
	}
	return 0, nil
}

// laterInts are the integer fields added after v4.
var laterInts = map[string]int{
	"cached_kv_len":   model.BatchCachedKVLen,
	"num_active":      model.BatchNumActive,
	"num_fetched":     model.BatchNumFetched,
	"num_dummy":       model.BatchNumDummy,
	"num_unscheduled": model.BatchNumUnscheduled,
}

// stateInts are the integer keys of the states dict.
var stateInts = map[string]int{
	"num_ctx_requests":      model.BatchCtxRequests,
	"num_ctx_tokens":        model.BatchCtxTokens,
	"num_generation_tokens": model.BatchGenTokens,
	"cached_kv_tokens":      model.BatchCachedKVTokens,
}

// states reads the Python dict repr {'key': N, …}. Keys it does not know
// (cached_kv_tokens_per_req holds a list) are skipped.
func states(o *model.BatchObservation, a *arena, v []byte) (seen, error) {
	bad := func() error { return fmt.Errorf("%w: states %q", ErrMalformed, clip(v)) }
	inner, open := bytes.CutPrefix(v, []byte("{"))
	inner, closed := bytes.CutSuffix(inner, []byte("}"))
	if !open || !closed {
		return 0, bad()
	}
	for len(inner) > 0 {
		entry, next := cutValue(inner)
		inner = next
		k, val, ok := bytes.Cut(entry, []byte(": "))
		if !ok || len(k) < 2 || k[0] != '\'' || k[len(k)-1] != '\'' {
			return 0, bad()
		}
		i, known := stateInts[string(k[1:len(k)-1])]
		if !known {
			continue
		}
		n, ok := count(val)
		if !ok || o.Ints[i] != nil {
			return 0, bad()
		}
		o.Ints[i] = a.int(n)
	}
	return 0, nil
}

// count reads digits whose value a float64 holds exactly (2^53).
func count(b []byte) (int64, bool) {
	f, ok := logmetric.ParseCount(b)
	return int64(f), ok
}

// unsafeKey views a field name without copying it; it is only compared
// and used as a map key for lookups, never kept.
func unsafeKey(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

func fieldEnd(rest []byte) bool { return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' }

func isWord(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c)
}
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
