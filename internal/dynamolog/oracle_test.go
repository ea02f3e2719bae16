package dynamolog

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// This file keeps the reading of a JSON line's identity fields through
// encoding/json maps, as the package did before it read them in one pass,
// and of a quoted text value through encoding/json.
// It is the oracle: the one-pass reader must agree with it on every input,
// down to which lines are undecodable, which values are strings, their
// decoded text and their truthiness.

// refValue is one recorded value as the map decoding kept it.
type refValue struct {
	present bool
	raw     json.RawMessage
	str     string
	isStr   bool
}

// refFields are the identity fields of one JSON line.
type refFields struct {
	v [numKeys]refValue
}

// refJSONFields merges, later winning: every object in "spans", then
// "span", then "fields", then the top level.
func refJSONFields(line []byte) (refFields, bool) {
	var f refFields
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil || top == nil {
		return f, false
	}
	var spans []json.RawMessage
	if raw, ok := top["spans"]; ok && json.Unmarshal(raw, &spans) == nil {
		for _, s := range spans {
			f.merge(s)
		}
	}
	f.merge(top["span"])
	f.merge(top["fields"])
	f.mergeObject(top)
	return f, true
}

func (f *refFields) merge(raw json.RawMessage) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		f.mergeObject(obj)
	}
}

func (f *refFields) mergeObject(obj map[string]json.RawMessage) {
	for k := range numKeys {
		raw, ok := obj[keyNames[k]]
		if !ok {
			continue
		}
		v := refValue{present: true, raw: raw}
		if len(raw) > 0 && raw[0] == '"' {
			v.isStr = json.Unmarshal(raw, &v.str) == nil
		}
		f.v[k] = v
	}
}

// truthy is lineFields.truthy for a JSON value as it was answered from the
// raw value.
func (v *refValue) truthy() bool {
	if !v.present {
		return false
	}
	if v.isStr {
		return v.str != ""
	}
	raw := bytes.TrimSpace(v.raw)
	switch {
	case len(raw) == 0, string(raw) == "null", string(raw) == "false":
		return false
	case raw[0] == '[' || raw[0] == '{':
		var x any
		if json.Unmarshal(raw, &x) != nil {
			return false
		}
		switch x := x.(type) {
		case []any:
			return len(x) > 0
		case map[string]any:
			return len(x) > 0
		}
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		var n float64
		return json.Unmarshal(raw, &n) != nil || n != 0
	}
	return true
}

// refReadFields is readFields with the oracle reading JSON lines.
func refReadFields(line []byte) (refFields, lineFields, bool) {
	line = bytes.TrimSpace(stripANSI(line))
	if len(line) > 0 && line[0] == '{' {
		f, ok := refJSONFields(line)
		return f, lineFields{}, ok
	}
	text, ok := refTextFields(line)
	return refFields{}, text, ok
}

// refTextFields is textFields as it decoded a quoted value, with
// encoding/json.
func refTextFields(line []byte) (lineFields, bool) {
	f := lineFields{encoding: model.EncodingText}
	resume := 0
	for {
		i := bytes.IndexByte(line[resume:], '=')
		if i < 0 {
			return f, true
		}
		eq := resume + i
		k := keyBefore(line, eq, resume)
		if k < 0 {
			resume = eq + 1
			continue
		}
		end, quoted := valueEnd(line, eq+1)
		if end == eq+1 {
			resume = eq + 1
			continue
		}
		raw := line[eq+1 : end]
		var s string
		if raw[0] == '"' {
			// The reference JSON-decodes any value that starts with a quote,
			// including an unterminated one, and then drops the whole line.
			if !quoted || json.Unmarshal(raw, &s) != nil {
				return lineFields{encoding: model.EncodingText}, false
			}
		} else {
			s = string(raw)
		}
		v := &f.v[k]
		if v.present && v.str != s && !containsString(v.others, v.str) {
			v.others = append(v.others, v.str)
		}
		v.present, v.isStr, v.str = true, true, s
		resume = end
	}
}

// checkAgainstOracle fails t unless got (with ok) is what the oracle reads
// from a JSON line.
func checkAgainstOracle(t testing.TB, line []byte, got lineFields, ok bool, want refFields, wantOK bool) {
	t.Helper()
	if ok != wantOK {
		t.Fatalf("%.300q: decoded %v, oracle %v", line, ok, wantOK)
	}
	if got.encoding != model.EncodingJSON {
		t.Fatalf("%q: encoding %v", line, got.encoding)
	}
	for k := range numKeys {
		g, w := &got.v[k], &want.v[k]
		if g.present != w.present || g.isStr != w.isStr || g.str != w.str || got.truthy(k) != w.truthy() || g.others != nil {
			t.Fatalf("%.300q: %s = {present %v isStr %v str %q truthy %v others %q}, oracle {present %v isStr %v str %q truthy %v raw %s}",
				line, keyNames[k], g.present, g.isStr, g.str, got.truthy(k), g.others, w.present, w.isStr, w.str, w.truthy(), w.raw)
		}
	}
}

// readFields reads one line with a fresh reader.
func readFields(line []byte) (lineFields, bool) {
	var r fieldReader
	return r.readFields(line)
}
