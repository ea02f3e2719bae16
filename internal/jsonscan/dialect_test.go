package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// TestWording pins each dialect's error texts: parsers report them to users
// and their tests and goldens assert them.
func TestWording(t *testing.T) {
	tests := []struct {
		in           string
		json, python string
		offset       int
		eof          bool
	}{
		{`nul`, "unexpected end of input", "unexpected end of record", 3, true},
		{`nox`, "invalid character 'o' in literal null", "unexpected character 'o'", 1, false},
		{`{"a" 1}`, "expected ':' after object key, found '1'", "unexpected character '1'", 5, false},
		{`{"a":1 "b"}`, "expected ',' or '}' after object member, found '\"'", "unexpected character '\"'", 7, false},
		{`[1 2]`, "expected ',' or ']' after array element, found '2'", "unexpected character '2'", 3, false},
		{"\"a\tb\"", "invalid control character byte 0x09 in string", "control character in string", 2, false},
		{`"\x"`, "invalid escape 'x' in string", "invalid escape", 2, false},
		{`"\u12x4"`, `invalid \u escape in string`, `invalid \u escape`, 3, false},
		{`"abc`, "unexpected end of input", "unterminated string", 4, true},
		{`x`, "invalid character 'x' looking for beginning of value", "unexpected character 'x'", 0, false},
		{`1.x`, "invalid character 'x' after decimal point in number", "unexpected character 'x'", 2, false},
		{`1ex`, "invalid character 'x' in exponent of number", "unexpected character 'x'", 2, false},
		{`[[[1]]]`, "nesting deeper than 2 levels", "nesting deeper than 2", 2, false},
		{`1 2`, "unexpected data after the record's JSON value", "unexpected data after the record", 2, false},
	}
	for _, tc := range tests {
		for _, d := range []Dialect{JSON, Python} {
			s := Scanner{Dialect: d, MaxDepth: 2}
			s.Reset([]byte(tc.in))
			err := s.Skip()
			if err == nil {
				err = s.End()
			}
			want := tc.json
			if d == Python {
				want = tc.python
			}
			se, ok := err.(*SyntaxError)
			if !ok || se.Msg != want || se.Offset != tc.offset || se.EOF != tc.eof {
				t.Errorf("dialect %d, %q: got %#v, want %q at %d (eof %v)", d, tc.in, err, want, tc.offset, tc.eof)
			}
		}
	}
}

func TestJSONDialectRejectsNonFinite(t *testing.T) {
	for _, in := range []string{`NaN`, `-Infinity`, `[Infinity]`} {
		var s Scanner
		s.Reset([]byte(in))
		if s.Skip() == nil && s.End() == nil {
			t.Errorf("JSON dialect accepted %s", in)
		}
	}
}

func TestStrBytesReplacesInvalidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"\"a\xffb\"":          "a\uFFFDb",
		"\"\\n\xe2\x82\"":     "\n\uFFFD\uFFFD",
		"\"\\u00e9\xc3\xa9\"": "éé",
	} {
		var s Scanner
		s.Reset([]byte(in))
		got, err := s.StrBytes()
		if err != nil || string(got) != want {
			t.Errorf("StrBytes(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// FuzzJSONDialect checks the JSON dialect against encoding/json: the same
// texts are valid (below the nesting bound) and strings decode the same.
func FuzzJSONDialect(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x"]}`, `[NaN]`, `"\ud83d\ude00"`, "\"a\xffb\"", `{"a":{"b":null}}`, `-0.5e-3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		var s Scanner
		s.Reset(data)
		err := s.Skip()
		if err == nil {
			err = s.End()
		}
		if strings.Count(string(data), "[")+strings.Count(string(data), "{") >= DefaultMaxDepth {
			return
		}
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("json.Valid = %v, Skip error = %v for %q", valid, err, data)
		}
		s.Reset(data)
		if err == nil && s.Peek() == String {
			got, err := s.StrBytes()
			var want string
			if json.Unmarshal(data, &want) != nil || err != nil || string(got) != want {
				t.Fatalf("StrBytes = %q, %v; encoding/json = %q", got, err, want)
			}
		}
	})
}
