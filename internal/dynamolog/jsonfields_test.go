package dynamolog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/model"
)

// trickyLines are JSON lines on which a one-pass reader could part from
// encoding/json's map decoding: validity, layers, repeated keys, escapes,
// invalid UTF-8, whitespace, nesting and the truthiness of non-strings.
var trickyLines = []string{
	// Not an object, or not JSON.
	``, ` `, `null`, `[]`, `"x"`, `1`, `true`, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`,
	`{"a":1}}`, `{"a":1}x`, `{"a":1}{}`, `{"a":1}` + "\x00", `{'a':1}`, `{a:1}`, `{"a":1]`, `{"a":[1}`,
	"\xef\xbb\xbf{\"x_request_id\":\"a\"}", "{\u00a0\"a\":1}", "{\"a\":\f1}", "{\"a\":1}\u00a0", "{\"a\":1}\v",
	// Whitespace JSON allows.
	`{}`, `{ }`, ` {"x_request_id":"a"} `, "\t{\"x_request_id\":\"a\"}\r\n",
	"{\n\t\"x_request_id\" :\r \"a\" ,\n \"spans\" : [ { \"request_id\" : \"b\" } , 1 ] }",
	// Repeated keys: the last wins, whatever its type.
	`{"x_request_id":"a","x_request_id":"b"}`, `{"x_request_id":"a","x_request_id":5}`, `{"x_request_id":5,"x_request_id":"a"}`,
	`{"x_request_id":"a","x_request_id":null}`, `{"fields":{"x_request_id":"a","x_request_id":""}}`,
	// Layers.
	`{"spans":[{"x_request_id":"s1"},{"x_request_id":"s2"}],"span":{"x_request_id":"span"},"fields":{"x_request_id":"fields"},"x_request_id":"top"}`,
	`{"x_request_id":"top","fields":{"x_request_id":"fields"},"span":{"x_request_id":"span"},"spans":[{"x_request_id":"s1"}]}`,
	`{"spans":[{"x_request_id":"s1","request_id":"r1"},{"x_request_id":"s2"}],"span":{"request_id":"r2"}}`,
	`{"spans":{"x_request_id":"a"}}`, `{"spans":null}`, `{"spans":"x"}`, `{"spans":[]}`, `{"spans":[[{"x_request_id":"a"}]]}`,
	`{"spans":[1,"x",null,true,{"x_request_id":"a"},[{"x_request_id":"b"}],{}]}`,
	`{"spans":[{"x_request_id":"a"}],"spans":5}`, `{"spans":5,"spans":[{"x_request_id":"a"}]}`,
	`{"spans":[{"x_request_id":"a"}],"spans":[{"request_id":"b"}]}`, `{"span":{"x_request_id":"a"},"span":null}`,
	`{"span":null}`, `{"span":[{"x_request_id":"a"}]}`, `{"fields":"x"}`, `{"fields":{"fields":{"x_request_id":"deep"}}}`,
	`{"fields":{"spans":[{"x_request_id":"a"}],"span":{"x_request_id":"b"}}}`, `{"fields":{"x_request_id":"a"},"x_request_id":null}`,
	`{"spans":[{"x_request_id":"a"},{"x_request_id":"b","x_request_id":"c"}]}`, `{"spans":[{"a":{"x_request_id":"nested"}}]}`,
	`{"spans":[{"x_request_id":"a"}`, `{"spans":[{"x_request_id":"a"},]}`, `{"span":{"x_request_id":"a"},"fields":{"x_request_id":}}`,
	// Escapes, in values and keys.
	`{"x_request_id":"\u0041\u00e9\ud83d\ude00\/\\\"\b\f\n\r\t"}`, `{"x_request_id":"\ud800"}`, `{"x_request_id":"\udc00"}`,
	`{"x_request_id":"\ud800\u0041"}`, `{"x_request_id":"\ud800\ud800"}`, `{"x_request_id":"\ud800\udc00\udc00"}`,
	`{"x_request_id":"\ud83d\ude0"}`, `{"x_request_id":"\ud83d\u"}`, `{"x_request_id":"\x"}`, `{"x_request_id":"\U0041"}`,
	`{"x_request_id":"\ud83d"}`, `{"x_request_id":"a\ud83d\"}`, `{"x_request_id":"\u0000"}`, `{"x_request_id":"\ud800\\"}`,
	`{"x_request\u005fid":"a"}`, `{"sp\u0061ns":[{"x_request_id":"s"}]}`, `{"x_request_id\u0000":"a"}`, `{"\ud800":"a"}`,
	// Invalid UTF-8 is accepted and decodes as U+FFFD; raw control characters are not.
	"{\"x_request_id\":\"\xff\"}", "{\"x_request_id\":\"a\xc3\"}", "{\"x_request_id\":\"\xc3\\u00a9\"}",
	"{\"x_request_id\":\"\xe2\x82\"}", "{\"x_request_id\":\"\xed\xa0\x80\"}", "{\"x_request_id\":\"\xc0\xaf\"}",
	"{\"x_request_id\":\"\xf4\x90\x80\x80\"}", "{\"x_request_id\xff\":\"a\"}", "{\"a\":\"\xff\",\"x_request_id\":\"b\"}",
	"{\"x_request_id\":\"\xe2\x82\\n\"}", "{\"x_request_id\":\"\xe2\x82\xac\"}", "{\"\xff\":1}",
	"{\"x_request_id\":\"a\tb\"}", "{\"x_request_id\":\"a\x00b\"}", "{\"x_request_id\":\"a\x1fb\"}", "{\"x_request_id\":\"a\x7fb\"}",
	// Numbers and literals.
	`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":+1}`, `{"a":-01}`, `{"a":1.e5}`, `{"a":0x10}`,
	`{"a":NaN}`, `{"a":Infinity}`, `{"a":-Infinity}`, `{"a":tru}`, `{"a":nul}`, `{"a":True}`, `{"a":1E+2}`, `{"a":-0.0e-0}`,
	// Truthiness of what is not a string.
	`{"dynamo.request.id":null}`, `{"dynamo.request.id":false}`, `{"dynamo.request.id":true}`, `{"dynamo.request.id":""}`,
	`{"dynamo.request.id":0}`, `{"dynamo.request.id":-0}`, `{"dynamo.request.id":0.0}`, `{"dynamo.request.id":-0.0e10}`,
	`{"dynamo.request.id":0e-5}`, `{"dynamo.request.id":1e-400}`, `{"dynamo.request.id":-1e-400}`, `{"dynamo.request.id":1e400}`,
	`{"dynamo.request.id":-1e400}`, `{"dynamo.request.id":1.7976931348623157e308}`, `{"dynamo.request.id":1.7976931348623159e308}`,
	`{"dynamo.request.id":4.9406564584124654e-324}`, `{"dynamo.request.id":2.4703282292062327e-324}`, `{"dynamo.request.id":2.4703282292062328e-324}`,
	`{"dynamo.request.id":[]}`, `{"dynamo.request.id":[ ]}`, `{"dynamo.request.id":{}}`, "{\"dynamo.request.id\":{\n}}",
	`{"dynamo.request.id":[0]}`, `{"dynamo.request.id":[null]}`, `{"dynamo.request.id":{"a":null}}`, `{"dynamo.request.id":[[]]}`,
	`{"dynamo.request.id":[1e400]}`, `{"dynamo.request.id":{"a":[1e400]}}`, `{"dynamo.request.id":["1e400"]}`, `{"dynamo.request.id":[1e-400]}`,
	`{"dynamo.request.id":{"a":1e400,"a":1}}`, `{"dynamo.request.id":{"1e400":1}}`, `{"dynamo.request.id":[-1e400,"\"",2]}`,
	`{"dynamo.request.id":["\\",1e400]}`, `{"dynamo.request.id":[{"a":"\"1e400"}]}`,
	`{"x_request_id":"c","dynamo.request.id":null,"request_id":"22222222-2222-4222-8222-222222222222"}`,
	// Quoted values of readable lines are JSON strings too.
	`x_request_id="a" request_id="\u00e9\ud83d\ude00\ud800\/"`, "x_request_id=\"\xff\xc3\"", `x_request_id="\u00"`,
	`x_request_id="\x"`, `x_request_id="a\"b" request_id="c`, "x_request_id=\"a\tb\"", "x_request_id=\"a\x7fb\"",
	`x_request_id="a"b request_id=""`, `x_request_id="\\" request_id="\"`, "\x1b[1mx_request_id=\"\x1b[0ma\"",
}

// deepLine nests depth arrays as the value of x_request_id, inside a
// "spans" element when inSpans.
func deepLine(depth int, inSpans bool) string {
	v := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	if inSpans {
		return `{"spans":[{"x_request_id":` + v + `}]}`
	}
	return `{"x_request_id":` + v + `}`
}

// dirtyLine fills every layer, so that a reader reused after it shows any
// state carried over.
const dirtyLine = `{"spans":[{"x_request_id":"s","request_id":"s","dynamo.request.id":"s","dynamo.instance.id":"s","dynamo.operation.role":"s","dynamo.process.epoch":"s","message":"s","time":"s","timestamp":"s"}],"span":{"x_request_id":1},"fields":{"request_id":[1]},"dynamo.instance.id":true}`

// checkLine compares the one-pass reader with the oracle on one input, with
// a fresh reader and with one that read dirtyLine before.
func checkLine(t testing.TB, line []byte) {
	t.Helper()
	want, wantOK := refJSONFields(line)
	var fresh, reused fieldReader
	got, ok := fresh.jsonFields(line)
	checkAgainstOracle(t, line, got, ok, want, wantOK)
	reused.jsonFields([]byte(dirtyLine))
	got, ok = reused.jsonFields(line)
	checkAgainstOracle(t, line, got, ok, want, wantOK)

	// The whole line path, ANSI codes and surrounding space included.
	wantJSON, wantText, wantOK := refReadFields(line)
	got, ok = fresh.readFields(line)
	if got.encoding == model.EncodingJSON {
		checkAgainstOracle(t, line, got, ok, wantJSON, wantOK)
	} else if ok != wantOK || !sameText(got, wantText) {
		t.Fatalf("%.300q: text fields differ", line)
	}
}

func sameText(a, b lineFields) bool {
	if a.encoding != b.encoding {
		return false
	}
	for k := range numKeys {
		x, y := a.v[k], b.v[k]
		if x.present != y.present || x.isStr != y.isStr || x.str != y.str || strings.Join(x.others, "\x00") != strings.Join(y.others, "\x00") {
			return false
		}
	}
	return true
}

func TestJSONFieldsMatchEncodingJSON(t *testing.T) {
	lines := append([]string{}, trickyLines...)
	for _, d := range []int{maxNesting - 1, maxNesting, maxNesting + 1} {
		// The record and "spans" open 1 and 3 levels around the value.
		lines = append(lines, deepLine(d, false), deepLine(d-2, true), deepLine(d-1, false))
	}
	for _, in := range seedLines(t) {
		lines = append(lines, string(in))
	}
	for _, line := range lines {
		checkLine(t, []byte(line))
	}
}

// TestJSONFieldValues pins a few answers independently of the oracle.
func TestJSONFieldValues(t *testing.T) {
	tests := []struct {
		line   string
		ok     bool
		str    string // of x_request_id
		truthy bool   // of dynamo.request.id
	}{
		{"{\"x_request_id\":\"a\xffb\\ud800\"}", true, "a\uFFFDb\uFFFD", false},
		{`{"x_request_id":"\ud83d\ude00","dynamo.request.id":1e-400}`, true, "😀", false},
		{`{"x_request_id":"x","dynamo.request.id":1e400}`, true, "x", true},
		{`{"x_request_id":"x","dynamo.request.id":[1e400]}`, true, "x", false},
		{`{"x_request_id":"x","dynamo.request.id":[1e308]}`, true, "x", true},
		{`{"spans":[{"x_request_id":"s"}],"spans":5}`, true, "", false},
		{deepLine(maxNesting-1, false), true, "", false},
		{deepLine(maxNesting, false), false, "", false},
	}
	for _, tt := range tests {
		f, ok := readFields([]byte(tt.line))
		str, _ := f.str(keyClient)
		if ok != tt.ok || str != tt.str || f.truthy(keyDynamoRequest) != tt.truthy {
			t.Errorf("%.80q: %v %q %v, want %v %q %v", tt.line, ok, str, f.truthy(keyDynamoRequest), tt.ok, tt.str, tt.truthy)
		}
	}
}

// seedLines are the lines of the package's test inputs and of the build's
// hostile fixtures that hold a log.
func seedLines(t testing.TB) [][]byte {
	inputs := goldenInputs(t)
	fixtures, _ := filepath.Glob("../../cmd/build/testdata/hostile/*/overlay/logs/*.out")
	var lines [][]byte
	for _, input := range append(inputs, fixtures...) {
		data, err := os.ReadFile(input)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(data, []byte{'\n'})...)
	}
	for _, tc := range fieldLines {
		lines = append(lines, []byte(tc.line))
	}
	return lines
}

// FuzzJSONFieldsMatchEncodingJSON checks that the one-pass reader reads
// every input exactly as encoding/json's map decoding did, and a readable
// line's quoted values as encoding/json decoded them.
func FuzzJSONFieldsMatchEncodingJSON(f *testing.F) {
	for _, line := range trickyLines {
		f.Add([]byte(line))
	}
	for _, line := range seedLines(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		defer fuzzlimit.Start(t)()
		checkLine(t, line)
	})
}
