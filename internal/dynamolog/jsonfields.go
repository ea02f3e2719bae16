package dynamolog

import (
	"strconv"

	"github.com/dsight/dsight/internal/jsonscan"
	"github.com/dsight/dsight/internal/model"
)

// A JSON line's identity fields are read in one validating pass over the
// line, without building maps, and read exactly what decoding the line with
// encoding/json into map[string]json.RawMessage gave, as the package did
// before (that decoding is kept in the tests as the oracle). That means:
//
//   - the whole line must be valid JSON (as encoding/json accepts it: invalid
//     UTF-8 in strings is allowed, nesting is bounded at 10000) and a JSON
//     object, or the line has no fields at all;
//   - a key repeated in one object keeps its last value, and so does a
//     repeated "spans", "span" or "fields";
//   - strings are decoded as encoding/json decodes them, invalid UTF-8 and
//     unpaired surrogate escapes becoming U+FFFD;
//   - a value that is not a string keeps the truthiness encoding/json
//     decoding gave it (see nonStringTruth).

// maxNesting is encoding/json's nesting bound: a line nested deeper is
// invalid JSON to it, and so undecodable here.
const maxNesting = 10000

// layer is where an identity key was found. Later layers win.
type layer uint8

const (
	layerSpans  layer = iota // the objects of "spans", in order
	layerSpan                // "span"
	layerFields              // "fields"
	layerTop                 // the record itself
	numLayers
)

// valueAt locates a value in the line: [start, end), end 0 when absent.
type valueAt struct{ start, end int }

// fieldReader reads the fields of one log's lines; its scanner's buffers
// are reused from line to line.
type fieldReader struct {
	s  jsonscan.Scanner
	at [numLayers][numKeys]valueAt
}

// jsonFields merges, later winning: every object in "spans", then "span",
// then "fields", then the top level — tracing-subscriber's span context
// first, the event's own fields last. Values are located in one pass and
// only the winning ones decoded.
func (r *fieldReader) jsonFields(line []byte) (lineFields, bool) {
	f := lineFields{encoding: model.EncodingJSON}
	r.at = [numLayers][numKeys]valueAt{}
	s := &r.s
	s.MaxDepth = maxNesting
	s.Reset(line)
	if s.Peek() != jsonscan.Object {
		return f, false // not an object, or not JSON
	}
	if r.object(layerTop, 0) != nil || s.End() != nil {
		return f, false
	}
	for k := range numKeys {
		for l := layerTop; ; l-- {
			if at := r.at[l][k]; at.end > 0 {
				v, ok := r.value(line[at.start:at.end])
				if !ok {
					return lineFields{encoding: model.EncodingJSON}, false
				}
				f.v[k] = v
				break
			}
			if l == layerSpans {
				break
			}
		}
	}
	return f, true
}

// object reads the object at the scanner's position into layer l, with
// depth containers open around it. The top level also holds the layers.
func (r *fieldReader) object(l layer, depth int) error {
	s := &r.s
	if err := s.OpenObject(); err != nil {
		return err
	}
	depth++
	for first := true; ; first = false {
		key, done, err := s.NextMember(first)
		if err != nil || done {
			return err
		}
		k, sub := keyOf(key, l == layerTop)
		switch {
		case k >= 0:
			start := s.Pos()
			if err := s.SkipAt(depth); err != nil {
				return err
			}
			r.at[l][k] = valueAt{start, s.Pos()}
		case sub == layerSpans:
			r.at[sub] = [numKeys]valueAt{} // a repeated key replaces the layer
			if s.Peek() != jsonscan.Array {
				err = s.SkipAt(depth)
			} else {
				err = r.spans(depth)
			}
		case sub != numLayers:
			r.at[sub] = [numKeys]valueAt{}
			if s.Peek() != jsonscan.Object {
				err = s.SkipAt(depth)
			} else {
				err = r.object(sub, depth)
			}
		default:
			err = s.SkipAt(depth)
		}
		if err != nil {
			return err
		}
	}
}

// spans reads the array of "spans": its objects merge in order into one
// layer; other elements are skipped.
func (r *fieldReader) spans(depth int) error {
	s := &r.s
	if err := s.OpenArray(); err != nil {
		return err
	}
	depth++
	for first := true; ; first = false {
		done, err := s.NextElement(first)
		if err != nil || done {
			return err
		}
		if s.Peek() == jsonscan.Object {
			err = r.object(layerSpans, depth)
		} else {
			err = s.SkipAt(depth)
		}
		if err != nil {
			return err
		}
	}
}

// keyOf names a member's key: an identity key (k ≥ 0), or at the top level
// one of the layers (sub); numLayers when it is neither.
func keyOf(key []byte, top bool) (k fieldKey, sub layer) {
	switch string(key) {
	case "x_request_id":
		return keyClient, numLayers
	case "request_id":
		return keyRequestID, numLayers
	case "dynamo.request.id":
		return keyDynamoRequest, numLayers
	case "dynamo.instance.id":
		return keyInstance, numLayers
	case "dynamo.operation.role":
		return keyRole, numLayers
	case "dynamo.process.epoch":
		return keyEpoch, numLayers
	case "message":
		return keyMessage, numLayers
	case "time":
		return keyTime, numLayers
	case "timestamp":
		return keyTimestamp, numLayers
	}
	if top {
		switch string(key) {
		case "spans":
			return -1, layerSpans
		case "span":
			return -1, layerSpan
		case "fields":
			return -1, layerFields
		}
	}
	return -1, numLayers
}

// value decodes one winning value, already validated by the pass.
func (r *fieldReader) value(raw []byte) (fieldValue, bool) {
	v := fieldValue{present: true}
	if raw[0] != '"' {
		v.truth = nonStringTruth(raw)
		return v, true
	}
	r.s.Reset(raw)
	b, err := r.s.StrBytes()
	if err != nil {
		return v, false
	}
	v.str, v.isStr = string(b), true
	return v, true
}

// nonStringTruth answers truthy for a valid JSON value that is not a
// string as the map decoding did: null, false, a number that is zero as a
// float64 (0, -0.0, 1e-400) and an empty array or object are false. A
// number beyond float64's range is true, but an array or object holding
// one anywhere is false, because decoding it into an interface failed.
func nonStringTruth(raw []byte) bool {
	switch c := raw[0]; {
	case c == 'n' || c == 'f':
		return false
	case c == 't':
		return true
	case c == '[' || c == '{':
		return !emptyContainer(raw) && numbersFitFloat64(raw)
	}
	n, err := strconv.ParseFloat(string(raw), 64)
	return err != nil || n != 0
}

// emptyContainer reports [] or {} (with any whitespace inside).
func emptyContainer(raw []byte) bool {
	for _, c := range raw[1:] {
		switch c {
		case ' ', '\t', '\n', '\r':
		case ']', '}':
			return true
		default:
			return false
		}
	}
	return false
}

// numbersFitFloat64 reports whether every number in a valid JSON value
// converts to a float64 without overflow.
func numbersFitFloat64(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			for i++; raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(raw) && isNumberByte(raw[j]) {
				j++
			}
			if _, err := strconv.ParseFloat(string(raw[i:j]), 64); err != nil {
				return false
			}
			i = j - 1
		}
	}
	return true
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// jsonString decodes raw, one complete quoted token of a text line, as
// encoding/json decodes a JSON string into a Go string: false when it is
// not exactly one valid JSON string.
func (r *fieldReader) jsonString(raw []byte) (string, bool) {
	r.s.Reset(raw)
	b, err := r.s.StrBytes()
	if err != nil || !r.s.AtEnd() {
		return "", false
	}
	return string(b), true
}
