package sglang

import (
	"bytes"
	"fmt"

	"github.com/dsight/dsight/internal/logmetric"
)

// batchMessage recognises "Prefill batch" / "Decode batch", an optional
// " [counter]", then ", " or ". ", and returns the field text after it.
func batchMessage(msg []byte) (phaseMask, []byte, bool) {
	var phase phaseMask
	switch {
	case hasPrefix(msg, "Prefill batch"):
		phase, msg = phasePrefill, msg[len("Prefill batch"):]
	case hasPrefix(msg, "Decode batch"):
		phase, msg = phaseDecode, msg[len("Decode batch"):]
	default:
		return 0, nil, false
	}
	if hasPrefix(msg, " [") {
		rest := msg[2:]
		end := bytes.IndexByte(rest, ']')
		if end <= 0 || !allDigits(rest[:end]) {
			return 0, nil, false
		}
		msg = rest[end+1:]
	}
	if len(msg) < 2 || (msg[0] != ',' && msg[0] != '.') || msg[1] != ' ' {
		return 0, nil, false
	}
	return phase, msg[2:], true
}

// Field states while decoding one line.
const (
	fieldUnset uint8 = iota
	fieldSet
	fieldRepeated // logged more than once: ambiguous, dropped
)

// decodeBatch reads "key: value" fields joined by ", ". Unknown fields,
// fields of the other phase and invalid values create no value.
func decodeBatch(phase phaseMask, fields []byte) (logmetric.Observation, bool) {
	var (
		values  [len(batchFields)]float64
		state   [len(batchFields)]uint8
		count   int
		dropped string // why the first invalid value was dropped
	)
	for rest := fields; len(rest) > 0; {
		var part []byte
		part, rest = nextPart(rest, sepComma)
		if len(rest) == 0 {
			// Some versions end the line with ", " or ",".
			part = bytes.TrimRight(part, ", ")
		}
		key, raw, ok := bytes.Cut(part, sepColon)
		if !ok {
			continue
		}
		fi := batchFieldIndex(key)
		if fi < 0 || batchFields[fi].phases&phase == 0 {
			continue
		}
		v, ok := parseValue(batchFields[fi].kind, raw)
		if !ok {
			if dropped == "" {
				dropped = fmt.Sprintf("field %q has a value that fails validation (%.40q)", key, raw)
			}
			continue
		}
		switch state[fi] {
		case fieldUnset:
			state[fi], values[fi] = fieldSet, v
			count++
		case fieldSet:
			state[fi] = fieldRepeated
			count--
		}
	}
	if count == 0 {
		return logmetric.Observation{Dropped: dropped}, true
	}
	obs := logmetric.Observation{
		Labels:  make([]logmetric.Label, 1, 1+len(rankNames)),
		Values:  make([]logmetric.Value, 0, count),
		Dropped: dropped,
	}
	obs.Labels[0] = phaseLabel(phase)
	for fi, s := range state {
		if s == fieldSet {
			obs.Values = append(obs.Values, logmetric.Value{Name: batchNames[fi], Number: values[fi]})
		}
	}
	return obs, true
}

// batchFieldsByLength buckets batchFields indexes by key length: a lookup
// compares at most a few keys and never hashes.
var batchFieldsByLength = func() (byLen [32][]int) {
	for i, f := range batchFields {
		byLen[len(f.key)] = append(byLen[len(f.key)], i)
	}
	return byLen
}()

func batchFieldIndex(key []byte) int {
	if len(key) >= len(batchFieldsByLength) {
		return -1
	}
	for _, i := range batchFieldsByLength[len(key)] {
		if string(key) == batchFields[i].key {
			return i
		}
	}
	return -1
}

func parseValue(kind valueKind, raw []byte) (float64, bool) {
	switch kind {
	case kindCount:
		return logmetric.ParseCount(raw)
	case kindBool:
		switch string(raw) {
		case "True":
			return 1, true
		case "False":
			return 0, true
		}
		return 0, false
	}
	return logmetric.ParseDecimal(raw)
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
