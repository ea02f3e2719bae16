package sglang

import (
	"bytes"
	"fmt"

	"github.com/dsight/dsight/internal/logmetric"
)

// requestFieldByKey maps a ReqTimeStats field (key=value, or name(value) in
// the newest form's breakdown) to its request metric.
var requestFieldByKey = map[string]int{
	"bootstrap_duration":       reqBootstrap,
	"bootstrap":                reqBootstrap, // newest breakdown term
	"bootstrap_queue_duration": reqBootstrapQueue,
	"prealloc_queue_duration":  reqPreallocQueue,
	"queue_duration":           reqQueue,
	"forward_duration":         reqForward,
	"alloc_wait_duration":      reqAllocWait,
	"alloc_wait":               reqAllocWait, // newest breakdown term
	"transfer_duration":        reqTransfer,
	"transfer_speed":           reqTransferSpeed,
	"transfer_total":           reqTransferTotal,
}

// requestUnits is the printed suffix each request value must carry.
var requestUnits = [numRequestValues]string{
	reqBootstrap: "ms", reqBootstrapQueue: "ms", reqPreallocQueue: "ms", reqQueue: "ms",
	reqForward: "ms", reqAllocWait: "ms", reqTransfer: "ms",
	reqTransferSpeed: "GB/s", reqTransferTotal: "MB",
}

// requestValues collects one record's values; a field logged twice is
// ambiguous and dropped.
type requestValues struct {
	values [numRequestValues]float64
	state  [numRequestValues]uint8
	// dropped says why the first recorded value that fails validation was
	// not kept.
	dropped string
}

func (r *requestValues) invalid(key, raw []byte) {
	if r.dropped == "" {
		r.dropped = fmt.Sprintf("ReqTimeStats field %q has a value that fails validation (%.40q)", key, raw)
	}
}

func (r *requestValues) set(i int, v float64) {
	switch r.state[i] {
	case fieldUnset:
		r.state[i], r.values[i] = fieldSet, v
	case fieldSet:
		r.state[i] = fieldRepeated
	}
}

func (r *requestValues) get(i int) (float64, bool) {
	return r.values[i], r.state[i] == fieldSet
}

// decodeRequest reads "meta): fields" after "ReqTimeStats(". ok=false means
// the record is not one this generator reads (no "): ", or a type other than
// prefill or decode).
func decodeRequest(msg []byte) (logmetric.Observation, bool) {
	meta, fields, ok := bytes.Cut(msg, []byte("): "))
	if !ok {
		return logmetric.Observation{}, false
	}
	var r requestValues
	var phase phaseMask
	var phaseState uint8
	for rest := meta; len(rest) > 0; {
		var part []byte
		part, rest = nextPart(rest, sepComma)
		key, raw, ok := bytes.Cut(part, []byte("="))
		if !ok {
			continue
		}
		switch string(key) {
		case "type":
			phaseState++
			switch string(raw) {
			case "prefill":
				phase = phasePrefill
			case "decode":
				phase = phaseDecode
			default:
				phase = 0
			}
		case "input_len":
			if v, ok := logmetric.ParseCount(raw); ok {
				r.set(reqInput, v)
			} else {
				r.invalid(key, raw)
			}
		case "cached_input_len":
			if v, ok := logmetric.ParseCount(raw); ok {
				r.set(reqCached, v)
			} else {
				r.invalid(key, raw)
			}
		}
	}
	if phase == 0 || phaseState != 1 {
		return logmetric.Observation{}, false
	}
	input, inputOK := r.get(reqInput)
	cached, cachedOK := r.get(reqCached)
	if inputOK && cachedOK && cached <= input {
		r.set(reqUncached, input-cached)
		if input > 0 {
			r.set(reqCachedFraction, cached/input)
		}
	}
	decodeDurations(&r, fields)

	n := 0
	for _, st := range r.state {
		if st == fieldSet {
			n++
		}
	}
	obs := logmetric.Observation{
		Labels:  make([]logmetric.Label, 1, 1+len(rankNames)),
		Values:  make([]logmetric.Value, 0, n),
		Dropped: r.dropped,
	}
	obs.Labels[0] = phaseLabel(phase)
	for i := range numRequestValues {
		if v, ok := r.get(i); ok {
			obs.Values = append(obs.Values, logmetric.Value{Name: requestNames[i], Number: v})
		}
	}
	return obs, true
}

// decodeDurations reads the field text after "): ". The newest upstream form
// starts with "bootstrap_queue_duration(Xms) " or "prealloc_queue_duration(Xms) ",
// optionally followed by "= bootstrap(Yms) + alloc_wait(Zms); ", and then
// separates key=value fields by ", " or "; ".
func decodeDurations(r *requestValues, fields []byte) {
	if name, raw, rest, ok := parenField(fields); ok && (string(name) == "bootstrap_queue_duration" || string(name) == "prealloc_queue_duration") {
		rest = bytes.TrimPrefix(rest, []byte(" "))
		if breakdown, ok := bytes.CutPrefix(rest, []byte("= ")); ok {
			// Bootstrap completed: its parts are logged, and the total is
			// not recorded under the "not completed" metric.
			breakdown, rest = nextPart(breakdown, sepSemicolon)
			for len(breakdown) > 0 {
				var term []byte
				term, breakdown = nextPart(breakdown, sepPlus)
				if name, raw, tail, ok := parenField(term); ok && len(tail) == 0 {
					setRequestField(r, name, raw)
				}
			}
		} else {
			setRequestField(r, name, raw)
		}
		fields = rest
	}
	for len(fields) > 0 {
		var part []byte
		part, fields = nextPartEither(fields, sepComma, sepSemicolon)
		if key, raw, ok := bytes.Cut(part, []byte("=")); ok {
			setRequestField(r, key, raw)
		}
	}
}

// parenField reads "name(value)" at the start of b.
func parenField(b []byte) (name, value, rest []byte, ok bool) {
	open := bytes.IndexByte(b, '(')
	if open <= 0 {
		return nil, nil, nil, false
	}
	for _, c := range b[:open] {
		if (c < 'a' || c > 'z') && c != '_' {
			return nil, nil, nil, false
		}
	}
	end := bytes.IndexByte(b[open:], ')')
	if end < 0 {
		return nil, nil, nil, false
	}
	return b[:open], b[open+1 : open+end], b[open+end+1:], true
}

func setRequestField(r *requestValues, key, raw []byte) {
	i, ok := requestFieldByKey[string(key)]
	if !ok {
		return
	}
	num, ok := bytes.CutSuffix(raw, []byte(requestUnits[i]))
	if !ok {
		r.invalid(key, raw)
		return
	}
	if i == reqTransferSpeed || i == reqTransferTotal {
		num = bytes.TrimSuffix(num, []byte(" ")) // "2.00 GB/s" and "2.00GB/s" both occur
	}
	if v, ok := logmetric.ParseDecimal(num); ok {
		r.set(i, v)
	} else {
		r.invalid(key, raw)
	}
}
