package query

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/dsight/dsight/internal/jsonscan"
)

// Reading a question. The page asks the engine several questions for each
// click (a request's answer, the timeline, the window's overview), and
// encoding/json's reflection decoded each small question more slowly under
// wasm than some answers took; its decoder's functions were also among the
// largest the browser compiled again, on the page's other core, while the
// first clicks ran (docs/measurements.md, issue 17). So questions and their
// argument values are read with jsonscan, which accepts what encoding/json
// accepts and decodes strings as it does. A question outside the form
// every caller sends (keys "op" and "args" once each, spelled exactly,
// nothing after the object) is left to encoding/json, which keeps its
// errors and its leniencies (keys in any case, a repeated key, trailing
// text) exactly as they were.

// decodeWire reads a question's operation and raw arguments.
func decodeWire(req []byte) (wire, error) {
	if w, ok := scanWire(req); ok {
		return w, nil
	}
	var w wire
	dec := json.NewDecoder(bytes.NewReader(req))
	dec.DisallowUnknownFields()
	err := dec.Decode(&w)
	return w, err
}

// decodeArgsObject reads a plot request's arguments, a JSON object.
func decodeArgsObject(req []byte) (map[string]json.RawMessage, error) {
	var s jsonscan.Scanner
	s.Reset(req)
	if m, ok := scanArgs(&s); ok && s.End() == nil {
		return m, nil
	}
	var m map[string]json.RawMessage
	err := json.Unmarshal(req, &m)
	return m, err
}

// scanWire reads req in the form every caller sends, or reports false.
func scanWire(req []byte) (wire, bool) {
	var w wire
	var s jsonscan.Scanner
	s.Reset(req)
	if s.OpenObject() != nil {
		return w, false
	}
	seenOp, seenArgs := false, false
	for first := true; ; first = false {
		key, done, err := s.NextMember(first)
		switch {
		case err != nil:
			return w, false
		case done:
			return w, s.End() == nil
		case string(key) == "op" && !seenOp && s.Peek() == jsonscan.String:
			op, err := s.StrBytes()
			if err != nil {
				return w, false
			}
			w.Op, seenOp = string(op), true
		case string(key) == "args" && !seenArgs:
			m, ok := scanArgs(&s)
			if !ok {
				return w, false
			}
			w.Args, seenArgs = m, true
		default:
			return w, false
		}
	}
}

// scanArgs reads null (nil) or an object with distinct keys, each value
// as it is written.
func scanArgs(s *jsonscan.Scanner) (map[string]json.RawMessage, bool) {
	if s.Null() {
		return nil, true
	}
	if s.OpenObject() != nil {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	for first := true; ; first = false {
		key, done, err := s.NextMember(first)
		if err != nil {
			return nil, false
		}
		if done {
			return m, true
		}
		name := string(key)
		if _, dup := m[name]; dup {
			return nil, false
		}
		raw, err := s.Raw()
		if err != nil {
			return nil, false
		}
		m[name] = raw
	}
}

// jsonFloat reads raw as encoding/json reads a float64: a number, within
// a float64's range.
func jsonFloat(raw []byte) (float64, bool) {
	if !jsonscan.IsNumber(raw) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil
}

// jsonString reads raw as encoding/json reads a string.
func jsonString(raw []byte) (string, bool) {
	var s jsonscan.Scanner
	s.Reset(raw)
	if s.Peek() != jsonscan.String {
		return "", false
	}
	b, err := s.StrBytes()
	if err != nil || s.End() != nil {
		return "", false
	}
	return string(b), true
}

// jsonList reads raw as a JSON list, each element as it is written; each
// element is then read as what it should be.
func jsonList(raw []byte) ([][]byte, bool) {
	var s jsonscan.Scanner
	s.Reset(raw)
	if s.OpenArray() != nil {
		return nil, false
	}
	out := [][]byte{}
	for first := true; ; first = false {
		done, err := s.NextElement(first)
		if err != nil {
			return nil, false
		}
		if done {
			return out, s.End() == nil
		}
		e, err := s.Raw()
		if err != nil {
			return nil, false
		}
		out = append(out, e)
	}
}

// jsonStrings reads raw as encoding/json reads a []string (an element
// null is left "").
func jsonStrings(raw []byte) ([]string, bool) {
	elems, ok := jsonList(raw)
	if !ok {
		return nil, false
	}
	out := make([]string, len(elems))
	for k, e := range elems {
		if string(e) == "null" {
			continue
		}
		if out[k], ok = jsonString(e); !ok {
			return nil, false
		}
	}
	return out, true
}
