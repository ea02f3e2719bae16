package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/tools/gen/synth"
)

// hostileStrings are strings json.Marshal escapes: quotes, backslashes,
// every control character, HTML's <, > and &, U+2028/9, DEL, invalid
// UTF-8 (lone continuation bytes, truncated and overlong sequences,
// surrogates) and valid multi-byte text around them.
var hostileStrings = []string{
	"", `"`, `\`, `a"b\c`, "<script>alert(1)</script>", "a&b", "\u2028\u2029", "x\u2028y",
	"\x00\x01\x02\x07\b\t\n\v\f\r\x0e\x1f\x7f", "\xff", "a\xc3", "\xc3\x28", "\xe2\x80", "\xed\xa0\x80",
	"\xf0\x9f\x98", "\xc0\xaf", "héllo 世界 🙂", "\U0010ffff", "\ufffd", "\xef\xbf\xbd\xff",
	"</script><!--", "line1\r\nline2", "tab\there",
}

// requestsPageCases are the "requests" questions the checks ask: the
// default page, one request a page, offsets past the end and filters.
var requestsPageCases = []string{
	`{"op":"requests","args":{"limit":1000}}`,
	`{"op":"requests"}`,
	`{"op":"requests","args":{"limit":1,"offset":2}}`,
	`{"op":"requests","args":{"limit":5,"offset":100000}}`,
	`{"op":"requests","args":{"limit":1000,"min_ttft_ms":0.5}}`,
	`{"op":"requests","args":{"limit":1000,"search":"r"}}`,
}

// windowedPageCases are "requests" questions over windows of e's run:
// pages that start among the requests begun before the window, among those
// begun inside it, and past its end, with and without a filter.
func windowedPageCases(e *Engine) []string {
	var out []string
	d := e.durationS
	for _, f := range [][2]float64{{0.1, 0.4}, {0.5, 0.52}, {0.9, 1}, {0, 1}} {
		for _, page := range [][2]int{{0, 1000}, {0, 3}, {2, 5}, {7, 1}, {40, 20}, {100000, 5}} {
			for _, filter := range []string{"", `,"min_ttft_ms":0.5`} {
				out = append(out, fmt.Sprintf(`{"op":"requests","args":{"from":%v,"to":%v,"offset":%d,"limit":%d%s}}`, f[0]*d, f[1]*d, page[0], page[1], filter))
			}
		}
	}
	return out
}

// checkRequestsJSON compares, for every request of e, the hand-written
// item with json.Marshal of RequestItem, and each page answer with the
// envelope json.Marshal writes for the old list[RequestItem] answer.
func checkRequestsJSON(t *testing.T, e *Engine) {
	t.Helper()
	for i := range e.r.N {
		want, err := json.Marshal(e.item(i))
		if err != nil {
			t.Fatal(err)
		}
		ok := true
		if got := e.appendItem(nil, i, &ok); !ok || !bytes.Equal(got, want) {
			t.Fatalf("request %d (ok %v):\n got %s\nwant %s", i, ok, got, want)
		}
	}
	for _, q := range append(requestsPageCases, windowedPageCases(e)...) {
		var w Request
		if err := json.Unmarshal([]byte(q), &w); err != nil {
			t.Fatal(err)
		}
		op := Lookup("requests")
		a, perr := op.prepare(w.Args)
		if perr != nil {
			t.Fatal(perr)
		}
		old, err := e.requests(a)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(envelope{OK: true, Result: old})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Handle([]byte(q)); !bytes.Equal(got, want) {
			t.Fatalf("%s: Handle differs from json.Marshal:\n got %.400s\nwant %.400s", q, got, want)
		}
		// Into a buffer with room, and into one holding bytes already.
		if got, _ := e.AppendAnswer(make([]byte, 0, len(want)+10), []byte(q)); !bytes.Equal(got, want) {
			t.Fatalf("%s: AppendAnswer into room differs", q)
		}
		if got, _ := e.AppendAnswer([]byte("prefix"), []byte(q)); !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Fatalf("%s: AppendAnswer after bytes differs", q)
		}
		res, err := e.Do(Request{Op: "requests", Args: w.Args})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := json.Marshal(res); err != nil || !bytes.Equal(got, want[len(`{"ok":true,"result":`):len(want)-1]) {
			t.Fatalf("%s: Do's answer marshals differently (%v)", q, err)
		}
	}
}

// Every request of the golden runs (cmd/build's, every source; an
// AgentPerf one) is written byte for byte as json.Marshal writes it.
func TestRequestsJSONMatchesMarshalOnGoldenRuns(t *testing.T) {
	all := synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers | synth.SourceSGLang | synth.SourceTokenSpeed | synth.SourceTachometer | synth.SourceNsight
	for name, cfg := range map[string]synth.Config{
		"golden":    {Seed: 2, Requests: 60, NsightRanges: 400, Sources: synth.SourceAIPerf | all},
		"agentperf": {Seed: 5, Requests: 80, Sources: synth.SourceAgentPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers},
	} {
		t.Run(name, func(t *testing.T) {
			e := importedRun(t, cfg)
			if e.r.N < 50 {
				t.Fatalf("%d requests", e.r.N)
			}
			checkRequestsJSON(t, e)
		})
	}
	t.Run("fixtures", func(t *testing.T) {
		for _, d := range []*model.Dataset{fixture(), tracedFixture(300)} {
			e, err := FromDataset(d)
			if err != nil {
				t.Fatal(err)
			}
			checkRequestsJSON(t, e)
		}
	})
}

// importedRun is an engine over the run synth writes for cfg, imported as
// dsight build imports it.
func importedRun(t *testing.T, cfg synth.Config) *Engine {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, cfg); err != nil {
		t.Fatal(err)
	}
	res, err := importer.Import(importer.Options{Run: dir, Phase: "profiling", IterationTimezone: time.UTC, MaxProfileEvents: importer.DefaultMaxProfileEvents})
	if err != nil {
		t.Fatal(err)
	}
	e, err := FromDataset(res.Dataset)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// withoutEvidence is an engine over d's core alone, as the page opens a
// traced report before its evidence shards are given.
func withoutEvidence(t *testing.T, d *model.Dataset) *Engine {
	t.Helper()
	c, err := catalog.Open(catalog.Encode(d))
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// hostileDataset puts s in every string a request item shows, and f in
// its TTFT.
func hostileDataset(s string, f float64) *model.Dataset {
	d := fixture()
	d.Meta.ClientKind = s
	d.Sources = append(d.Sources, model.Source{ID: 3, Path: s, Kind: "client"})
	ref := &model.Ref{Source: 3, Line: 7}
	d.Requests = append(d.Requests, model.Request{
		ID: s + "id", Session: s, Agent: s + "a", Parent: &s, Conversation: &s, SourceTrace: &s, Turn: ptr(int64(-3)), Depth: 2,
		StartNS: 11*s0 + 1, EndNS: 12*s0 - 3, FirstNS: ptr(11*s0 + 7), TTFTms: &f,
		InputTokens: ptr(int64(math.MaxInt64)), OutputTokens: ptr(int64(0)), CachedTokens: ptr(int64(math.MinInt64)),
		Status: s, Error: &s, Phase: &s, Worker: &s, Evidence: model.Ref{Source: 3, Line: 9},
		TimingQuality: s, IdentityEvidence: ref, CacheUsageEvidence: &model.Ref{Source: 99, Line: 1}, PhaseEvidence: ref,
		OriginalStart: &s, OriginalEnd: &s, Issues: []string{s, "", s + s},
		Server: &model.RequestServer{ServerIDs: []string{s, "x"}, Workers: []string{s}, SpanCount: 3},
	})
	return d
}

const s0 = int64(time.Second)

// Hostile strings in every field, extreme integers and floats on both
// sides of encoding/json's exponent cutoffs are written as it writes them.
func TestRequestsJSONHostileValues(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1e-6, 9.999999e-7, 1e-7, 1e20, 1e21, 123456789e13, -1e-9,
		math.SmallestNonzeroFloat64, math.MaxFloat64, 0.1, 1.0 / 3, 2.5e-5, 1e300}
	for k, s := range hostileStrings {
		e, err := FromDataset(hostileDataset(s, floats[k%len(floats)]))
		if err != nil {
			t.Fatal(err)
		}
		checkRequestsJSON(t, e)
	}
	for _, f := range floats {
		checkFloat(t, f)
		checkFloat(t, -f)
	}
	for _, s := range hostileStrings {
		checkString(t, s)
	}
}

// A TTFT json.Marshal cannot write fails the answer as it always has.
func TestRequestsJSONNonFiniteFailsAsBefore(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		e, err := FromDataset(hostileDataset("x", f))
		if err != nil {
			t.Fatal(err)
		}
		op := Lookup("requests")
		a, _ := op.prepare(Args{})
		old, _ := e.requests(a)
		_, merr := json.Marshal(envelope{OK: true, Result: old})
		want := failure(merr)
		if got := e.Handle([]byte(`{"op":"requests"}`)); merr == nil || !bytes.Equal(got, want) {
			t.Fatalf("ttft %v: got %s, want %s", f, got, want)
		}
	}
}

func checkFloat(t *testing.T, f float64) {
	t.Helper()
	want, err := json.Marshal(f)
	ok := true
	got := appendJSONFloat(nil, f, &ok)
	if (err == nil) != ok || (ok && !bytes.Equal(got, want)) {
		t.Fatalf("%v: got %s (ok %v), want %s (%v)", f, got, ok, want, err)
	}
}

func checkString(t *testing.T, s string) {
	t.Helper()
	want, _ := json.Marshal(s) // a string always marshals
	if got := appendQuoted(nil, s); !bytes.Equal(got, want) {
		t.Fatalf("%q: got %s, want %s", s, got, want)
	}
}

// FuzzRequestsJSON checks the string escaper and float writer against
// json.Marshal on any input, and a request carrying the input in every
// string field.
func FuzzRequestsJSON(f *testing.F) {
	for k, s := range hostileStrings {
		f.Add(s, uint64(k)*0x9e3779b97f4a7c15)
	}
	f.Add("plain", math.Float64bits(1e21))
	f.Fuzz(func(t *testing.T, s string, bits uint64) {
		defer fuzzlimit.Start(t)()
		checkString(t, s)
		v := math.Float64frombits(bits)
		checkFloat(t, v)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		e, err := FromDataset(hostileDataset(s, v))
		if err != nil {
			t.Skip(err) // the dataset itself is refused, not written
		}
		checkRequestsJSON(t, e)
	})
}
