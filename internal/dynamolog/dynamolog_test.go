package dynamolog

import (
	"errors"
	"github.com/dsight/dsight/internal/model"
	"reflect"
	"strings"
	"testing"
)

func TestTextFields(t *testing.T) {
	tests := []struct {
		line string
		want map[string]string // key → value; nil when the line is undecodable
	}{
		{`x_request_id="a" dynamo.request.id=b`, map[string]string{"x_request_id": "a", "dynamo.request.id": "b"}},
		{`x_request_id=a,request_id=b}dynamo.process.epoch=c]`, map[string]string{"x_request_id": "a", "request_id": "b", "dynamo.process.epoch": "c"}},
		{`foo.x_request_id=a _request_id=b x_request_id= c`, map[string]string{}},
		{`éx_request_id=a ٣request_id=b`, map[string]string{}}, // letters and digits of any script are word characters
		{`·x_request_id=a`, map[string]string{"x_request_id": "a"}},
		{`(x_request_id=a)`, map[string]string{"x_request_id": "a)"}},
		{`x_request_id=request_id=b`, map[string]string{"x_request_id": "request_id=b"}},
		{`x_request_id="a b\"c" request_id=d`, map[string]string{"x_request_id": `a b"c`, "request_id": "d"}},
		{`x_request_id="\u00e9"`, map[string]string{"x_request_id": "é"}},
		{`x_request_id="unterminated request_id=d`, nil},
		{`x_request_id="bad\x"`, nil},
		{"x_request_id=\"tab\there\"", nil},
		{"x_request_id=a\u00a0request_id=b", map[string]string{"x_request_id": "a", "request_id": "b"}},
		{"x_request_id=a\x1frequest_id=b", map[string]string{"x_request_id": "a", "request_id": "b"}},
		{`request_id=a request_id=b request_id=a`, map[string]string{"request_id": "a"}},
		{"\x1b[32mx_request_id\x1b[0m=a", map[string]string{"x_request_id": "a"}},
	}
	for _, tt := range tests {
		f, ok := readFields([]byte(tt.line))
		if !ok {
			if tt.want != nil {
				t.Errorf("%q: undecodable, want %v", tt.line, tt.want)
			}
			continue
		}
		if tt.want == nil {
			t.Errorf("%q: decoded, want undecodable", tt.line)
			continue
		}
		got := map[string]string{}
		for k := range numTextKeys {
			if f.v[k].present {
				got[keyNames[k]] = f.v[k].str
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: fields %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestRepeatedTextKeyKeepsOthers(t *testing.T) {
	f, _ := readFields([]byte(`request_id=a request_id=b request_id=a request_id=c`))
	if v := f.v[keyRequestID]; v.str != "c" || !reflect.DeepEqual(v.others, []string{"a", "b"}) {
		t.Errorf("value %q others %q", v.str, v.others)
	}
}

func TestJSONFieldLayers(t *testing.T) {
	tests := []struct {
		line, want string
		ok         bool
	}{
		{`{"x_request_id":"top"}`, "top", true},
		{`{"spans":[{"x_request_id":"s1"},{"x_request_id":"s2"}]}`, "s2", true},
		{`{"spans":[{"x_request_id":"s1"}],"span":{"x_request_id":"span"}}`, "span", true},
		{`{"span":{"x_request_id":"span"},"fields":{"x_request_id":"fields"}}`, "fields", true},
		{`{"fields":{"x_request_id":"fields"},"x_request_id":"top"}`, "top", true},
		{`{"spans":"x","span":[1],"fields":null,"x_request_id":"top"}`, "top", true},
		{`{"x_request_id":"a","x_request_id":"b"}`, "b", true},
		{`  {"x_request_id":"padded"}  `, "padded", true},
		{`{"x_request_id":"a"} trailing`, "", false},
		{`{"x_request_id":`, "", false},
		{`{"x_request_id":NaN}`, "", false},
	}
	for _, tt := range tests {
		f, ok := readFields([]byte(tt.line))
		got, _ := f.str(keyClient)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestTruthy(t *testing.T) {
	for raw, want := range map[string]bool{
		`null`: false, `false`: false, `0`: false, `-0.0`: false, `0e3`: false, `""`: false, `[]`: false, `{}`: false,
		`true`: true, `1`: true, `"x"`: true, `[0]`: true, `{"a":1}`: true, `" "`: true,
	} {
		f, ok := readFields([]byte(`{"dynamo.request.id":` + raw + `}`))
		if !ok {
			t.Fatalf("%s did not decode", raw)
		}
		if got := f.truthy(keyDynamoRequest); got != want {
			t.Errorf("truthy(%s) = %v", raw, got)
		}
	}
}

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"22222222-2222-4222-8222-222222222222": true, "ABCDEF01-abcd-4222-8222-222222222222": true,
		"22222222-2222-4222-8222-22222222222": false, "22222222x2222-4222-8222-222222222222": false,
		"g2222222-2222-4222-8222-222222222222": false, "": false, "22222222-2222-4222-8222-2222222222222": false,
	} {
		if got := isUUID(s); got != want {
			t.Errorf("isUUID(%q) = %v", s, got)
		}
	}
}

func TestTimestamps(t *testing.T) {
	ns := func(ts *model.Timestamp) any {
		if ts == nil {
			return "no timestamp"
		}
		if ts.UnixNS == nil {
			return ts.Raw + " (local)"
		}
		return *ts.UnixNS
	}
	tests := []struct {
		got  *model.Timestamp
		want any
	}{
		{lineTimestamp([]byte("2025-09-02T15:50:01.770028Z  INFO main.init: x")), int64(1756828201770028000)},
		{lineTimestamp([]byte("\x1b[2m2025-09-02T15:50:01.123456789+02:00\x1b[0m INFO")), int64(1756821001123456789)},
		{lineTimestamp([]byte("2025-09-02T15:50:01 INFO")), "2025-09-02T15:50:01 (local)"},
		{lineTimestamp([]byte("INFO 2025-09-02T15:50:01Z")), "no timestamp"},
		{lineTimestamp([]byte("")), "no timestamp"},
		{firstOffsetTimestamp([]byte("[TRT] 2026-09-17 10:58:34 then 2026-09-17T10:58:33.230Z end")), int64(1789642713230000000)},
		{firstOffsetTimestamp([]byte("at 2026-09-17T10:58:33 and 2026-09-17T10:58:34-01:30")), int64(1789648114000000000)},
		{firstOffsetTimestamp([]byte("T2026-09-17T10:58:33Z")), int64(1789642713000000000)},
		{firstOffsetTimestamp([]byte("2026-09-17T10:58:33.Z 9999-99-99T99:99:99Z")), "no timestamp"},
		{firstOffsetTimestamp([]byte("T")), "no timestamp"},
	}
	for i, tt := range tests {
		if got := ns(tt.got); got != tt.want {
			t.Errorf("case %d: %v, want %v", i, got, tt.want)
		}
	}
}

func TestMarkAmbiguityAcrossFiles(t *testing.T) {
	a, err := ScanFrontend(strings.NewReader(
		"x_request_id=c1 dynamo.request.id=22222222-2222-4222-8222-222222222222\n"), "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ScanFrontend(strings.NewReader(
		"x_request_id=c2 dynamo.request.id=22222222-2222-4222-8222-222222222222\n"+
			"x_request_id=c3 dynamo.request.id=33333333-3333-4333-8333-333333333333\n"), "b")
	if err != nil {
		t.Fatal(err)
	}
	if a.Bridges[0].ServerConflict || b.Bridges[0].ServerConflict {
		t.Fatal("a single file shows no conflict")
	}
	all := append(append([]model.Bridge(nil), a.Bridges...), b.Bridges...)
	MarkAmbiguity(all)
	var got []bool
	for _, br := range all {
		got = append(got, br.ServerConflict, br.ClientAmbiguous)
	}
	if want := []bool{true, false, true, false, false, false}; !reflect.DeepEqual(got, want) {
		t.Errorf("flags %v, want %v", got, want)
	}
}

func TestLinesSplitOnNewlineOnly(t *testing.T) {
	log, err := ScanFrontend(strings.NewReader(
		"noise\rx_request_id=c dynamo.request.id=22222222-2222-4222-8222-222222222222\r\nlast x_request_id=d request_id=33333333-3333-4333-8333-333333333333"), "f")
	if err != nil {
		t.Fatal(err)
	}
	if log.Lines != 2 || len(log.Bridges) != 2 || log.Bridges[0].Ref.Line != 1 || log.Bridges[1].Ref.Line != 2 {
		t.Errorf("lines %d bridges %+v", log.Lines, log.Bridges)
	}
}

func TestLongLine(t *testing.T) {
	long := strings.Repeat("x", 200)
	in := "short\n" + long + "\nafter\n"
	_, err := Options{MaxLineBytes: 100}.ScanWorker(strings.NewReader(in), "w.out")
	var le *LineError
	if !errors.As(err, &le) || !errors.Is(err, ErrLineTooLong) || err.Error() != "w.out:2: line too long: over 100 bytes" {
		t.Fatalf("err = %v", err)
	}
	// Lines longer than the read buffer but under the limit are read whole.
	big := strings.Repeat("y", 200_000) + " dynamo.request.id=22222222-2222-4222-8222-222222222222 dynamo.instance.id=h dynamo.operation.role=decode dynamo.process.epoch=e"
	log, err := ScanWorker(strings.NewReader("a\n"+big+"\n"), "w.out")
	if err != nil || len(log.Bindings) != 1 || log.Bindings[0].Ref.Line != 2 {
		t.Fatalf("err %v log %+v", err, log)
	}
}
