package query

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// The page's questions, as engine.js writes them, and the CLI's and MCP's.
var plainQuestions = []string{
	`{"op":"request","args":{"id":"bae7c0b5-f89a-4ee9-86ba-41f102b16a36"}}`,
	`{"op":"window_overview","args":{"from":5087.369331648,"to":5147.375636058,"bins":200}}`,
	`{"op":"timeline","args":{"from":0,"to":7210.5,"offset":0,"limit":50,"sort":"start","expanded":["s-1","s-2","s-1\u0000a-1"],"focus_page":true}}`,
	`{"op":"stats","args":{"from":1e2,"to":2.5E+3,"ids":[0,3,17],"limit":200}}`,
	`{"op":"describe","args":{}}`,
	`{"op":"ops"}`,
	"{ \"op\" : \"requests\" ,\n\t\"args\" : { \"search\" : \"héllo\", \"limit\" : 5 } }\r\n",
	`{"args":null,"op":"summary"}`,
}

// wireByEncodingJSON is how every question was read before the scanner.
func wireByEncodingJSON(req []byte) (wire, error) {
	var w wire
	dec := json.NewDecoder(bytes.NewReader(req))
	dec.DisallowUnknownFields()
	err := dec.Decode(&w)
	return w, err
}

// sameWire fails t unless decodeWire reads req as encoding/json did: the
// same operation, arguments and error.
func sameWire(t *testing.T, req []byte) {
	t.Helper()
	got, gerr := decodeWire(req)
	want, werr := wireByEncodingJSON(req)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, encoding/json says %v", req, gerr, werr)
	}
	if gerr != nil {
		return
	}
	if got.Op != want.Op || (got.Args == nil) != (want.Args == nil) || len(got.Args) != len(want.Args) {
		t.Fatalf("%q: read %q %v, encoding/json reads %q %v", req, got.Op, got.Args, want.Op, want.Args)
	}
	for k, v := range want.Args {
		if !bytes.Equal(got.Args[k], v) {
			t.Fatalf("%q: argument %s is %s, encoding/json reads %s", req, k, got.Args[k], v)
		}
	}
}

// sameArgsObject fails t unless decodeArgsObject reads req (a plot
// request's arguments) as json.Unmarshal did.
func sameArgsObject(t *testing.T, req []byte) {
	t.Helper()
	got, gerr := decodeArgsObject(req)
	var want map[string]json.RawMessage
	werr := json.Unmarshal(req, &want)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, encoding/json says %v", req, gerr, werr)
	}
	if (got == nil) != (want == nil) || len(got) != len(want) {
		t.Fatalf("%q: read %v, encoding/json reads %v", req, got, want)
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Fatalf("%q: argument %s is %s, encoding/json reads %s", req, k, got[k], v)
		}
	}
}

// The plain questions are scanned (not left to encoding/json), and read
// as encoding/json reads them.
func TestPlainQuestionsAreScanned(t *testing.T) {
	for _, q := range plainQuestions {
		if _, ok := scanWire([]byte(q)); !ok {
			t.Errorf("%s is left to encoding/json", q)
		}
		sameWire(t, []byte(q))
	}
}

// Whatever the scanner leaves to encoding/json keeps its reading: keys in
// another case, repeated keys, escapes, trailing text, bad UTF-8, errors.
func TestUnusualQuestionsReadAsBefore(t *testing.T) {
	for _, q := range []string{
		`{"OP":"request","Args":{"id":"x"}}`,
		`{"op":"request","op":"describe"}`,
		`{"op":"request","args":{"id":"a","id":"b"}}`,
		`{"op":"req\u0075est","args":{"i\u0064":"x"}}`,
		`{"op":"request"} trailing`,
		`{"op":"request"}{"op":"x"}`,
		"{\"op\":\"re\xffquest\"}",
		`{"op":"request","extra":1}`,
		`{"op":1}`,
		`{"op":null,"args":{"id":"x"}}`,
		`{"op":"request","args":[1]}`,
		`{"op":"request","args":{"id":{"nested":[1,{"a":null}]}}}`,
		`{"op":"request","args":{"from":01}}`,
		`{"op":"request","args":{"from":1.}}`,
		`{"op":"request","args":{"from":-}}`,
		`{"op":"request",}`,
		`{"op":"request"`,
		``,
		`   `,
		`[]`,
		`null`,
		`{}`,
		`{"name":"g","from":1,"to":2.5,"ids":[0,3],"points":true}`,
		`{"name":"g","Name":"h"}`,
	} {
		sameWire(t, []byte(q))
		sameArgsObject(t, []byte(q))
	}
}

// argByEncodingJSON is how an argument value was read before the scanner.
func argByEncodingJSON(g *Arg, raw []byte) (any, bool) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil, true
	}
	switch g.Type {
	case Number:
		var f float64
		return f, json.Unmarshal(raw, &f) == nil
	case Integer:
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return nil, false
		}
		if v, err := n.Int64(); err == nil {
			return v, true
		}
		f, err := n.Float64()
		return int64(f), err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53
	case String:
		var s string
		return s, json.Unmarshal(raw, &s) == nil
	case Boolean:
		var b bool
		return b, json.Unmarshal(raw, &b) == nil
	case Strings:
		var ss []string
		return ss, json.Unmarshal(raw, &ss) == nil
	case Integers:
		var ns []json.RawMessage
		if json.Unmarshal(raw, &ns) != nil {
			return nil, false
		}
		out := make([]int, len(ns))
		for k, r := range ns {
			v, ok := argByEncodingJSON(&Arg{Type: Integer}, r)
			if !ok || v == nil || v.(int64) < math.MinInt32 || v.(int64) > math.MaxInt32 {
				return nil, false
			}
			out[k] = int(v.(int64))
		}
		return out, true
	}
	return nil, false
}

// sameArg fails t unless g.decode reads raw as encoding/json did (before
// the bounds check, which both share).
func sameArg(t *testing.T, g *Arg, raw []byte) {
	t.Helper()
	loose := *g
	loose.Min, loose.Max, loose.Enum = nil, nil, nil
	var a Args
	err := loose.decode(&a, raw)
	want, ok := argByEncodingJSON(g, raw)
	if ok && want != nil && g.Type == Number && (math.IsInf(want.(float64), 0) || math.IsNaN(want.(float64))) {
		ok = false // check refuses what is not finite
	}
	if (err == nil) != ok {
		t.Fatalf("%s (%s) of %q: error %v, encoding/json reads ok=%v", g.Name, g.Type, raw, err, ok)
	}
	if err != nil {
		return
	}
	var w Args
	if want != nil {
		loose.set(&w, want)
	}
	if got, want := loose.value(&a), loose.value(&w); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s of %q: %#v, encoding/json reads %#v", g.Name, raw, got, want)
	}
}

var argSamples = []string{
	`1`, `-0`, `0.5`, `1e3`, `2.5E-3`, `1e400`, `-1e400`, `01`, `1.`, `.5`, `+1`, `0x10`, `1_0`, `NaN`, `Infinity`,
	`9007199254740993`, `9007199254740992.0`, `2147483648`, `-2147483649`, `3.0`, `3.5`, `"7"`, `"7.5"`, `""`,
	`"x"`, `"héllo"`, `"a\"b"`, `"\u00e9\ud800"`, "\"\xff\"", "\"tab\there\"", `"x" `, ` "x"`, `"x" "y"`,
	`true`, `false`, `True`, `tru`, `null`, `nul`, `[]`, `[ ]`, `["a","b"]`, `["a",null]`, `["a",1]`,
	`[1,2,3]`, `[1,"2"]`, `[1,null]`, `[1.0,2e0]`, `[1.5]`, `[[1]]`, `[1,]`, `[1`, `{}`, `{"a":1}`, ``,
}

// Every argument type reads every sample as encoding/json read it.
func TestArgValuesReadAsBefore(t *testing.T) {
	for _, typ := range []ArgType{Number, Integer, String, Boolean, Strings, Integers} {
		g := argOfType(t, typ)
		for _, raw := range argSamples {
			sameArg(t, g, []byte(raw))
		}
	}
}

// argOfType is a declared argument of type typ.
func argOfType(t testing.TB, typ ArgType) *Arg {
	for k := range allArgs {
		if allArgs[k].Type == typ {
			return &allArgs[k]
		}
	}
	t.Fatalf("no argument of type %s", typ)
	return nil
}

// Every declared argument's Args field is one value and set handle: unset
// it is no value; set, it reads back as set.
func TestEveryArgFieldIsHandled(t *testing.T) {
	for k := range allArgs {
		g := &allArgs[k]
		var a Args
		if v := g.value(&a); v != nil {
			t.Errorf("%s: unset, it reads %#v", g.Name, v)
		}
		_, val := sample(g)
		g.set(&a, val)
		if v := g.value(&a); !reflect.DeepEqual(v, val) {
			t.Errorf("%s: set to %#v, it reads %#v", g.Name, val, v)
		}
	}
	// A field type they do not handle is named, not ignored.
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "bogus") {
			t.Errorf("an unhandled field type: %v", r)
		}
	}()
	g := Arg{Name: "bogus", field: func(*Args) any { return new(float32) }}
	g.value(&Args{})
}

// FuzzDecodeWire: a question, a plot request's arguments and a value of
// every argument type are read as encoding/json read them.
func FuzzDecodeWire(f *testing.F) {
	for _, q := range plainQuestions {
		f.Add([]byte(q))
	}
	for _, raw := range argSamples {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		sameWire(t, data)
		sameArgsObject(t, data)
		for _, typ := range []ArgType{Number, Integer, String, Boolean, Strings, Integers} {
			sameArg(t, argOfType(t, typ), data)
		}
	})
}

func BenchmarkDecodeQuestion(b *testing.B) {
	for _, q := range plainQuestions[:3] {
		op := strings.SplitN(q, `"`, 5)[3]
		b.Run(op, func(b *testing.B) {
			req := []byte(q)
			for b.Loop() {
				w, err := decodeWire(req)
				if err != nil {
					b.Fatal(err)
				}
				o, lerr := lookup(w.Op)
				if lerr != nil {
					b.Fatal(lerr)
				}
				a, aerr := o.decodeArgs(w.Args, "query")
				if aerr != nil {
					b.Fatal(aerr)
				}
				if _, aerr := o.prepare(a); aerr != nil {
					b.Fatal(aerr)
				}
			}
		})
	}
}
