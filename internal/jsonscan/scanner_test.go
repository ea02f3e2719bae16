package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

func TestSkipValidates(t *testing.T) {
	valid := []string{
		`{}`, `[]`, `{"a":[1,-2.5e+3,true,false,null,"x\n\u00e9\ud83d\ude00"],"b":{"c":{}}}`,
		` { "a" : NaN , "b" : -Infinity , "c" : Infinity } `, `"plain"`, `0`, `-0.0E-0`,
	}
	for _, in := range valid {
		s := Scanner{Dialect: Python}
		s.Reset([]byte(in))
		if err := s.Skip(); err != nil || s.End() != nil {
			t.Errorf("Skip(%s) = %v, End = %v", in, err, s.End())
		}
	}
	invalid := []string{
		``, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `01`, `1.`, `.5`, `-`, `1e`, `+1`,
		`tru`, `nul`, `nan`, `-NaN`, `Inf`, `"abc`, `"a\x"`, `"\u12"`, `"a` + "\x01" + `"`, `{'a':1}`, `{"a":1}}`,
		strings.Repeat("[", DefaultMaxDepth+1) + strings.Repeat("]", DefaultMaxDepth+1),
	}
	for _, in := range invalid {
		s := Scanner{Dialect: Python}
		s.Reset([]byte(in))
		err := s.Skip()
		if err == nil {
			err = s.End()
		}
		if err == nil {
			t.Errorf("Skip(%q) accepted", in)
		}
	}
}

func TestStr(t *testing.T) {
	tests := map[string]string{
		`"<img src=x onerror=alert(1)>"`: `<img src=x onerror=alert(1)>`,
		`"\u003cb\u003e"`:                `<b>`,
		`"\"\\\/\b\f\n\r\t"`:             "\"\\/\b\f\n\r\t",
		`"\ud83d\ude00"`:                 "😀",
		`"\ud83d"`:                       "\uFFFD",
		`"\ud83dx"`:                      "\uFFFDx",
		`"\ude00\ud83d"`:                 "\uFFFD\uFFFD",
		`"\ud83d\u0041"`:                 "\uFFFDA",
		`"é"`:                            "é",
	}
	for in, want := range tests {
		s := Scanner{Dialect: Python}
		s.Reset([]byte(in))
		got, err := s.Str()
		if err != nil || got != want {
			t.Errorf("Str(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	s := Scanner{Dialect: Python}
	s.Reset([]byte("\"a\xffb\""))
	if _, err := s.Str(); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
}

func TestObjectSkipsUnconsumed(t *testing.T) {
	s := Scanner{Dialect: Python}
	s.Reset([]byte(`{"big":[1,2,[3,{"x":"y"}]],"k\u0065ep":"v","n":{"value":7}}`))
	var keep string
	var n []byte
	err := s.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "keep":
			keep, err = s.Str()
		case "n":
			err = s.Object(func(k []byte) error {
				if string(k) == "value" {
					n, err = s.Num()
				}
				return err
			})
		}
		return err
	})
	if err != nil || keep != "v" || string(n) != "7" || s.End() != nil {
		t.Fatalf("got keep=%q n=%s err=%v", keep, n, err)
	}
}

func TestTruthy(t *testing.T) {
	tests := map[string]bool{
		`null`: false, `false`: false, `true`: true, `0`: false, `-0.0e5`: false, `0.1`: true,
		`NaN`: true, `""`: false, `"x"`: true, `[]`: false, `[0]`: true, `{}`: false, `{"a":null}`: true,
	}
	for in, want := range tests {
		s := Scanner{Dialect: Python}
		s.Reset([]byte(in))
		got, err := s.Truthy()
		if err != nil || got != want || s.End() != nil {
			t.Errorf("Truthy(%s) = %v, %v; want %v", in, got, err, want)
		}
	}
}

// FuzzScanner checks Skip against encoding/json.Valid, which differs only in
// the Python non-finite literals and the nesting bound.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x"]}`, `[NaN]`, `"\ud83d\ude00"`, `{"metadata":{"x":null}}`, `1e5`, `[[[]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		s := Scanner{Dialect: Python}
		s.Reset(data)
		err := s.Skip()
		if err == nil {
			err = s.End()
		}
		if strings.Contains(string(data), "NaN") || strings.Contains(string(data), "Infinity") ||
			strings.Count(string(data), "[")+strings.Count(string(data), "{") > DefaultMaxDepth {
			return
		}
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("json.Valid = %v, Skip error = %v for %q", valid, err, data)
		}
		if err == nil && json.Valid(data) {
			s.Reset(data)
			if s.Peek() == String {
				got, err := s.Str()
				var want string
				if json.Unmarshal(data, &want) == nil && err == nil && got != want {
					t.Fatalf("Str = %q, encoding/json = %q", got, want)
				}
			}
		}
	})
}
