package dynamolog

import (
	"bytes"
	"github.com/dsight/dsight/internal/model"
	"unicode"
	"unicode/utf8"
)

// Encoding is how a log line recorded its fields.

// fieldKey names an identity field a line can carry.
type fieldKey int

const (
	keyClient        fieldKey = iota // x_request_id: the client's request header
	keyRequestID                     // request_id: legacy Dynamo request id
	keyDynamoRequest                 // dynamo.request.id
	keyInstance                      // dynamo.instance.id: the recorded host
	keyRole                          // dynamo.operation.role
	keyEpoch                         // dynamo.process.epoch
	keyMessage                       // JSON records only, as are the keys below
	keyTime
	keyTimestamp
	numKeys
)

// numTextKeys counts the keys a text line is searched for.
const numTextKeys = keyMessage

var keyNames = [numKeys]string{
	keyClient: "x_request_id", keyRequestID: "request_id", keyDynamoRequest: "dynamo.request.id",
	keyInstance: "dynamo.instance.id", keyRole: "dynamo.operation.role", keyEpoch: "dynamo.process.epoch",
	keyMessage: "message", keyTime: "time", keyTimestamp: "timestamp",
}

// fieldValue is one recorded value. Text values are always strings; a JSON
// value that is not a string keeps only its truthiness, so that it is never
// mistaken for one.
type fieldValue struct {
	present bool
	str     string
	isStr   bool
	truth   bool // JSON non-strings only: see nonStringTruth
	// others are the distinct earlier values of a key repeated on a text
	// line; the last value is the one used.
	others []string
}

// lineFields are the identity fields of one line.
type lineFields struct {
	encoding model.Encoding
	v        [numKeys]fieldValue
}

// str returns a field's value when it is a non-empty string.
func (f *lineFields) str(k fieldKey) (string, bool) {
	v := &f.v[k]
	return v.str, v.isStr && v.str != ""
}

// truthy reports a present value that is not null, false, 0, "", [] or {}:
// the test the reference applies before falling back to another key.
func (f *lineFields) truthy(k fieldKey) bool {
	v := &f.v[k]
	if !v.present {
		return false
	}
	if f.encoding == model.EncodingText || v.isStr {
		return v.str != ""
	}
	return v.truth
}

// readFields decodes the identity fields of a line: a JSON object when the
// line (without ANSI colour codes and surrounding space) starts with '{',
// key=value text otherwise. It reports false for a line that cannot be
// decoded (invalid JSON, a JSON value that is not an object, or an invalid
// quoted text value), which then carries no fields at all.
func (r *fieldReader) readFields(line []byte) (lineFields, bool) {
	line = bytes.TrimSpace(stripANSI(line))
	if len(line) > 0 && line[0] == '{' {
		return r.jsonFields(line)
	}
	return r.textFields(line)
}

// stripANSI removes SGR colour codes (ESC '[' digits/semicolons 'm').
func stripANSI(line []byte) []byte {
	if bytes.IndexByte(line, 0x1b) < 0 {
		return line
	}
	out := make([]byte, 0, len(line))
	for i := 0; i < len(line); i++ {
		if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
			j := i + 2
			for j < len(line) && (line[j] == ';' || (line[j] >= '0' && line[j] <= '9')) {
				j++
			}
			if j < len(line) && line[j] == 'm' {
				i = j
				continue
			}
		}
		out = append(out, line[i])
	}
	return out
}

// textFields reads key=value pairs for the identity keys, as the pattern
// (?<![\w.])(key)=("(?:[^"\\]|\\.)*"|[^\s,}\]]+) finds them left to right.
// A quoted value is a JSON string. A repeated key keeps its last value.
func (r *fieldReader) textFields(line []byte) (lineFields, bool) {
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
			ok := false
			if quoted {
				s, ok = r.jsonString(raw)
			}
			if !ok {
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

// keyBefore returns the identity key ending just before the '=' at eq and
// starting at or after from, with no word character or '.' before it.
func keyBefore(line []byte, eq, from int) fieldKey {
	for k := range numTextKeys {
		name := keyNames[k]
		start := eq - len(name)
		if start < from || string(line[start:eq]) != name {
			continue
		}
		if start > 0 && wordOrDotBefore(line[:start]) {
			continue
		}
		return k
	}
	return -1
}

func wordOrDotBefore(b []byte) bool {
	r, _ := utf8.DecodeLastRune(b)
	return r == '.' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r)
}

// valueEnd returns the end of the value starting at i and whether it is a
// complete quoted string. An unterminated quote falls back to an unquoted
// run, as the pattern's second alternative would.
func valueEnd(line []byte, i int) (int, bool) {
	if i < len(line) && line[i] == '"' {
		for j := i + 1; j < len(line); j++ {
			switch line[j] {
			case '"':
				return j + 1, true
			case '\\':
				j++
			}
		}
	}
	j := i
	for j < len(line) {
		c := line[j]
		if c < utf8.RuneSelf {
			if c == ',' || c == '}' || c == ']' || isASCIISpace(c) {
				break
			}
			j++
			continue
		}
		r, size := utf8.DecodeRune(line[j:])
		if unicode.IsSpace(r) {
			break
		}
		j += size
	}
	return j, false
}

// isASCIISpace matches Python's str.isspace for ASCII, which also counts
// the file, group, record and unit separators.
func isASCIISpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isUUID reports a canonical 8-4-4-4-12 hexadecimal UUID.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
