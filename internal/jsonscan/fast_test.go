package jsonscan

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// stepResult is what one read leaves behind: its result, its error and
// the scanner's state.
type stepResult struct {
	Key, Str []byte
	S        string
	Done     bool
	Err      string
	Pos      int
	Replaced int
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	se, ok := err.(*SyntaxError)
	if !ok {
		return "not a SyntaxError: " + err.Error()
	}
	return string(rune('0'+btoi(se.EOF))) + ":" + strconv.Itoa(se.Offset) + ":" + se.Msg
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// compareReads runs the fast readers and the oracle over data from pos and
// fails on any difference in result, error (offset, EOF, wording) or state.
func compareReads(t *testing.T, data []byte, pos int, first bool, dialect Dialect, strict bool) {
	t.Helper()
	if pos < 0 || pos > len(data) {
		return
	}
	mk := func() *Scanner {
		s := &Scanner{Dialect: dialect, StrictSurrogates: strict}
		s.Reset(data)
		s.pos = pos
		return s
	}
	type read struct {
		name         string
		fast, oracle func(s *Scanner) stepResult
	}
	reads := []read{
		{"NextMember",
			func(s *Scanner) stepResult {
				k, done, err := s.NextMember(first)
				return stepResult{Key: bytes.Clone(k), Done: done, Err: errText(err), Pos: s.pos, Replaced: s.Replaced}
			},
			func(s *Scanner) stepResult {
				k, done, err := s.oracleNextMember(first)
				return stepResult{Key: bytes.Clone(k), Done: done, Err: errText(err), Pos: s.pos, Replaced: s.Replaced}
			}},
		{"StrBytes",
			func(s *Scanner) stepResult {
				b, err := s.StrBytes()
				return stepResult{Str: bytes.Clone(b), Err: errText(err), Pos: s.pos, Replaced: s.Replaced}
			},
			func(s *Scanner) stepResult {
				b, err := s.oracleStrBytes()
				return stepResult{Str: bytes.Clone(b), Err: errText(err), Pos: s.pos, Replaced: s.Replaced}
			}},
		{"StrPlain",
			func(s *Scanner) stepResult {
				at := s.pos
				b, ok := s.StrPlain()
				if !ok {
					if s.pos != at || b != nil {
						return stepResult{Err: "StrPlain moved or returned bytes on refusal"}
					}
					b, err := s.StrBytes()
					return stepResult{Str: bytes.Clone(b), Err: errText(err), Pos: s.pos, Replaced: s.Replaced}
				}
				return stepResult{Str: bytes.Clone(b), Pos: s.pos, Replaced: s.Replaced}
			},
			func(s *Scanner) stepResult {
				b, err := s.oracleStrBytes()
				return stepResult{Str: bytes.Clone(b), Err: errText(err), Pos: s.pos, Replaced: s.Replaced}
			}},
		{"Str",
			func(s *Scanner) stepResult {
				v, err := s.Str()
				return stepResult{S: v, Err: errText(err), Pos: s.pos, Replaced: s.Replaced}
			},
			func(s *Scanner) stepResult {
				v, err := s.oracleStr()
				return stepResult{S: v, Err: errText(err), Pos: s.pos, Replaced: s.Replaced}
			}},
		{"PeekByte",
			func(s *Scanner) stepResult {
				c, err := s.PeekByte()
				return stepResult{S: string(c), Err: errText(err), Pos: s.pos}
			},
			func(s *Scanner) stepResult {
				c, err := s.oraclePeekByte()
				return stepResult{S: string(c), Err: errText(err), Pos: s.pos}
			}},
	}
	for _, r := range reads {
		got, want := r.fast(mk()), r.oracle(mk())
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s(%q at %d, first=%v) = %+v; the general path reads %+v", r.name, data, pos, first, got, want)
		}
	}
	// Reading a whole object member by member must also agree, including
	// where it stops.
	fast, oracle := mk(), mk()
	for i := 0; i < 64; i++ {
		k1, d1, e1 := fast.NextMember(i == 0 && first)
		k2, d2, e2 := oracle.oracleNextMember(i == 0 && first)
		if !bytes.Equal(k1, k2) || d1 != d2 || errText(e1) != errText(e2) || fast.pos != oracle.pos {
			t.Fatalf("member %d of %q: %q %v %v at %d; the general path reads %q %v %v at %d", i, data, k1, d1, e1, fast.pos, k2, d2, e2, oracle.pos)
		}
		if e1 != nil || d1 {
			return
		}
		if err := fast.Skip(); err != nil {
			return
		}
		oracle.pos = fast.pos
	}
}

// FuzzFastPaths checks the word-at-a-time string scan, the ASCII shortcut
// past UTF-8 validation and the compact member reader against the general
// readers they stand in for.
func FuzzFastPaths(f *testing.F) {
	seeds := []string{
		`{"key":"value","a":1}`, `,"stringValue":"abcdefghijklmnopqrstuvwxyz0123456789"}`,
		`{"k":"caf\u00e9 é \ud83d"}`, `"abc\"def"`, `"abcdefgh\x01"`, "\"abcdefgh\x01\"", "\"abcdefghij\xff\xfe\"",
		`{ "a" : 1 }`, `{"a" :1}`, `{"a": 1}`, `{"":1}`, `{"a":`, `{"a"`, `"\u00`, `,"k":"v"`,
		"\"\xef\xbb\xbf\"", "\xef\xbb\xbf{\"a\":1}", `{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), 0, true, false, false)
		f.Add([]byte(s), 1, false, false, false)
	}
	// Real OTLP records.
	for _, dir := range []string{"../otlp/testdata", "../../../shared/fixtures/otel"} {
		_ = filepath.WalkDir(dir, func(name string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".json") {
				return nil
			}
			// The first few records of each, kept short: the fuzzer mutates
			// and minimizes a large input slowly.
			data, err := os.ReadFile(name)
			if err != nil {
				return nil
			}
			for i, line := range bytes.SplitAfter(data, []byte("\n")) {
				if i == 4 {
					break
				}
				f.Add(line[:min(len(line), 2048)], 1, true, false, false)
			}
			return nil
		})
	}
	f.Fuzz(func(t *testing.T, data []byte, pos int, first, python, strict bool) {
		defer fuzzlimit.Start(t)()
		dialect := JSON
		if python {
			dialect = Python
		}
		compareReads(t, data, pos, first, dialect, strict)
		// Every position of a short input, as a decoder reaches them.
		if len(data) <= 256 {
			for p := range len(data) {
				compareReads(t, data, p, first, dialect, strict)
			}
		}
	})
}

func TestSpecialIsExact(t *testing.T) {
	for c := range 256 {
		for at := range 8 {
			w := bytes.Repeat([]byte{'a'}, 8)
			w[at] = byte(c)
			got := special(leUint64(w)) != 0
			if want := !plain[c]; got != want {
				t.Fatalf("byte %#x at %d: special %v, want %v", c, at, got, want)
			}
		}
	}
}

func TestPlainRun(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			d := bytes.Repeat([]byte{'a'}, 20)
			d[at] = byte(c)
			want := 20
			if !keyByte[c] {
				want = at
			}
			for from := 0; from <= at; from++ {
				if got := plainRun(d, from); got != want {
					t.Fatalf("byte %#x at %d, from %d: plainRun = %d, want %d", c, at, from, got, want)
				}
			}
		}
	}
}

func leUint64(b []byte) uint64 {
	var w uint64
	for i := 7; i >= 0; i-- {
		w = w<<8 | uint64(b[i])
	}
	return w
}

func TestStrPlain(t *testing.T) {
	for in, want := range map[string]bool{
		`"abc"`: true, `"0123456789abcdef0123"`: true, `""`: true, ` "abc"`: false,
		`"a\nb"`: false, "\"abcdefghij\xc3\xa9\"": false, "\"abcdefghij\x01\"": false, `"abc`: false, `"abcdefghijklmnop`: false,
	} {
		s := Scanner{}
		s.Reset([]byte(in))
		if _, ok := s.StrPlain(); ok != want {
			t.Errorf("StrPlain(%q) = %v, want %v", in, ok, want)
		}
	}
}

func TestStrBytesNonASCII(t *testing.T) {
	// A high byte in the word-at-a-time part or in the tail must still be
	// validated and replaced.
	for _, in := range []string{"\"abcdefgh\xffijk\"", "\"ab\xff\"", "\"abcdefghijklmnop\xc3\"", "\"é\""} {
		s := Scanner{}
		s.Reset([]byte(in))
		o := Scanner{}
		o.Reset([]byte(in))
		got, err := s.StrBytes()
		want, werr := o.oracleStrBytes()
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) || s.Replaced != o.Replaced {
			t.Errorf("StrBytes(%q) = %q %v (replaced %d); want %q %v (%d)", in, got, err, s.Replaced, want, werr, o.Replaced)
		}
	}
}
