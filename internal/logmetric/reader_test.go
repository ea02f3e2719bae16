package logmetric

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"
)

// origin is "time 0" of the scenarios below, which mirror the reference test
// suite: a configuration at -1 s, batches at 2.23 s and 5.23 s.
var origin = time.Date(2026, 9, 17, 10, 58, 31, 0, time.UTC)

func stampAt(sec float64) string {
	return origin.Add(time.Duration(math.Round(sec * 1e9))).Format("2006-01-02 15:04:05.000")
}

// ln builds one fake log line at sec seconds from origin.
func ln(sec float64, rank, proc, labels, values string) string {
	return fmt.Sprintf("[%s] %s %s %s %s", stampAt(sec), rank, proc, labels, values)
}

func rel(ns int64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", float64(ns-origin.UnixNano())/1e9), "0"), ".")
}

var decodeSrc = SourceInfo{Path: "logs/host_decode_w0.out", SourceID: 3, Worker: "decode-0", Host: "host", Role: "decode"}

func read(t *testing.T, src SourceInfo, loc *time.Location, lines ...string) *Result {
	t.Helper()
	r, err := Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), src, loc, newFake())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return r
}

// summary renders series compactly: name[rank proc labels] t=v... ->ref
func summary(r *Result) []string {
	var out []string
	for _, s := range r.Series {
		var b strings.Builder
		fmt.Fprintf(&b, "%s[%s %s %s]", strings.TrimPrefix(s.Definition.Name, "log_test_"), s.Rank, orDash(s.Process), formatLabels(s.Labels))
		for _, p := range s.Points {
			v := "null"
			if !p.Null {
				v = fmt.Sprint(p.Value)
			}
			fmt.Fprintf(&b, " %s=%s@%d", rel(p.TimeNS), v, p.Line)
		}
		if s.Reference != nil {
			fmt.Fprintf(&b, " ->%d", s.Reference.Series)
		}
		out = append(out, b.String())
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func checkSummary(t *testing.T, r *Result, want ...string) {
	t.Helper()
	got := summary(r)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("series:\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

func TestReadPairsLimitsInScope(t *testing.T) {
	r := read(t, decodeSrc, time.UTC,
		ln(-1, "attention_tp:0", "-", "-", fakeLimit+"=8"),
		"unrelated line",
		ln(2.23, "attention_tp:0", "-", "-", fakeActive+"=4,"+fakePages+"=8,"+fakePool+"=128"),
		ln(5.23, "attention_tp:0", "-", "-", fakeActive+"=6,"+fakePages+"=16,"+fakePool+"=128"),
	)
	checkSummary(t, r,
		`request_limit[attention_tp:0 - {}] -1=8@1`,
		`active_requests[attention_tp:0 - {}] 2.23=4@3 5.23=6@4 ->0`,
		`active_pages[attention_tp:0 - {}] 2.23=8@3 5.23=16@4 ->3`,
		`pool_pages[attention_tp:0 - {}] 2.23=128@3 5.23=128@4`,
	)
	if r.Series[1].Reference.Label != "Logged batch limit" || r.Series[2].Reference.Label != "KV page pool size" {
		t.Errorf("reference labels = %q, %q", r.Series[1].Reference.Label, r.Series[2].Reference.Label)
	}
	if got := r.Series[0].Points[0].SourceID; got != 3 {
		t.Errorf("evidence source id = %d, want 3", got)
	}
	if r.Window == nil || rel(r.Window.StartNS) != "2.23" || rel(r.Window.EndNS) != "5.231" {
		t.Errorf("window = %+v, want 2.23..5.231 (the limit at -1 adds nothing)", r.Window)
	}
}

func TestReadSettingsChangeAndClear(t *testing.T) {
	r := read(t, decodeSrc, time.UTC,
		ln(-1, "attention_tp:0", "-", "-", fakeLimit+"=8"),
		ln(3, "attention_tp:0", "-", "-", fakeLimit+"=16"),
		ln(5, "attention_tp:0", "-", "-", fakeLimit+"=null"),
		ln(7, "attention_tp:0", "-", "-", fakeLimit+"=32"),
	)
	checkSummary(t, r, `request_limit[attention_tp:0 - {}] -1=8@1 3=16@2 5=null@3 7=32@4`)
	if r.Window != nil {
		t.Errorf("configuration-only log created window %+v", r.Window)
	}
}

func TestReadNeverPoolsScopes(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{{
		name: "limit on another rank",
		lines: []string{
			ln(-1, "attention_tp:1", "-", "-", fakeLimit+"=8"),
			ln(2.23, "attention_tp:0", "-", "-", fakeActive+"=4"),
		},
		want: []string{`request_limit[attention_tp:1 - {}] -1=8@1`, `active_requests[attention_tp:0 - {}] 2.23=4@2 ->-1`},
	}, {
		name: "same index, different rank namespace",
		lines: []string{
			ln(-1, "dp:0", "-", "-", fakeLimit+"=8"),
			ln(2.23, "attention_tp:0", "-", "-", fakeActive+"=4"),
		},
		want: []string{`request_limit[dp:0 - {}] -1=8@1`, `active_requests[attention_tp:0 - {}] 2.23=4@2 ->-1`},
	}, {
		name: "no rank is not rank 0",
		lines: []string{
			ln(-1, "-", "-", "-", fakeLimit+"=8"),
			ln(2.23, "dp:0", "-", "-", fakeActive+"=4"),
		},
		want: []string{`request_limit[- - {}] -1=8@1`, `active_requests[dp:0 - {}] 2.23=4@2 ->-1`},
	}, {
		name: "process isolates",
		lines: []string{
			ln(-1, "attention_tp:0", "epoch-a", "-", fakeLimit+"=8"),
			ln(2.23, "attention_tp:0", "epoch-b", "-", fakeActive+"=4"),
			ln(3, "attention_tp:0", "epoch-a", "-", fakeActive+"=5"),
		},
		want: []string{
			`request_limit[attention_tp:0 epoch-a {}] -1=8@1`,
			`active_requests[attention_tp:0 epoch-b {}] 2.23=4@2 ->-1`,
			`active_requests[attention_tp:0 epoch-a {}] 3=5@3 ->0`,
		},
	}, {
		name: "labels isolate, in any logged order",
		lines: []string{
			ln(-1, "dp:0", "-", "tp=0,ep=0", fakeLimit+"=8"),
			ln(2.23, "dp:0", "-", "tp=1,ep=0", fakeActive+"=4"),
			ln(3, "dp:0", "-", "ep=0,tp=0", fakeActive+"=5"),
		},
		want: []string{
			`request_limit[dp:0 - {"ep"="0","tp"="0"}] -1=8@1`,
			`active_requests[dp:0 - {"ep"="0","tp"="1"}] 2.23=4@2 ->-1`,
			`active_requests[dp:0 - {"ep"="0","tp"="0"}] 3=5@3 ->0`,
		},
	}, {
		name: "ranks of one file stay separate",
		lines: []string{
			ln(1, "dp:0", "-", "-", fakeEvent+"=4"),
			ln(1, "dp:1", "-", "-", fakeEvent+"=4"),
		},
		want: []string{`request_tokens[dp:0 - {}] 1=4@1`, `request_tokens[dp:1 - {}] 1=4@2`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkSummary(t, read(t, decodeSrc, time.UTC, tc.lines...), tc.want...)
		})
	}
}

func TestReadReferenceResolvedIndependentlyOfOrder(t *testing.T) {
	r := read(t, decodeSrc, time.UTC,
		ln(2.23, "attention_tp:0", "-", "-", fakeActive+"=4"),
		ln(3, "attention_tp:0", "-", "-", fakeLimit+"=8"),
	)
	checkSummary(t, r, `active_requests[attention_tp:0 - {}] 2.23=4@1 ->1`, `request_limit[attention_tp:0 - {}] 3=8@2`)
}

func TestReadWithoutTimezone(t *testing.T) {
	r := read(t, decodeSrc, nil,
		ln(-1, "attention_tp:0", "-", "-", fakeLimit+"=8"),
		ln(2.23, "attention_tp:0", "-", "-", fakeActive+"=4"),
		"[2026-09-17 11:58:33.000@3600] attention_tp:0 - - "+fakeActive+"=5",
	)
	checkSummary(t, r, `active_requests[attention_tp:0 - {}] 2=5@3 ->-1`)
	if r.Unaligned != 2 || len(r.Warnings) != 1 || r.Warnings[0] != WarnNeedTimezone {
		t.Errorf("unaligned=%d warnings=%q, want 2 and [%q]", r.Unaligned, r.Warnings, WarnNeedTimezone)
	}
}

func TestReadAppliesTimezone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	r := read(t, decodeSrc, ny, "[2026-09-17 06:58:33.230] attention_tp:0 - - "+fakeActive+"=4")
	if got := rel(r.Series[0].Points[0].TimeNS); got != "2.23" {
		t.Errorf("EDT local 06:58:33.230 = %s s from 10:58:31 UTC, want 2.23", got)
	}
}

func TestReadResolutionIsCoarsest(t *testing.T) {
	r := read(t, decodeSrc, time.UTC,
		"[2026-09-17 10:58:33.23] dp:0 - - "+fakeEvent+"=1",
		"[2026-09-17 10:58:34] dp:0 - - "+fakeEvent+"=2",
		"[2026-09-17 10:58:35.123456] dp:0 - - "+fakeEvent+"=3",
	)
	if got := r.Series[0].TimeResolution(); got != 1 {
		t.Errorf("resolution = %v, want 1 (one point has no fraction)", got)
	}
	// Ends: 2.23+0.01, 3+1, 4.123456+0.000001; the latest wins.
	if got := r.Window.EndNS - origin.UnixNano(); got != 4_123_457_000 {
		t.Errorf("window end = %d ns after origin, want 4123457000", got)
	}
	r = read(t, decodeSrc, time.UTC, "[2026-09-17 10:58:33,23] dp:0 - - "+fakeEvent+"=1")
	if len(r.Series) != 0 {
		t.Errorf("comma fraction accepted by a '.' grammar")
	}
	r = read(t, decodeSrc, time.UTC, "[2026-09-17 10:58:33.23] dp:0 - - "+fakeEvent+"=1")
	if got, want := r.Series[0].TimeResolution(), 0.01; got != want {
		t.Errorf("resolution = %v, want %v", got, want)
	}
}

func TestReadEventsKeepEveryLine(t *testing.T) {
	r := read(t, decodeSrc, time.UTC,
		ln(1, "dp:0", "-", "-", fakeEvent+"=4"),
		ln(1, "dp:0", "-", "-", fakeEvent+"=4"),
		ln(1, "dp:0", "-", "-", fakeEvent+"=7"),
	)
	checkSummary(t, r, `request_tokens[dp:0 - {}] 1=4@1 1=4@2 1=7@3`)
}

func TestReadConflictingSettingsStayRaw(t *testing.T) {
	r := read(t, decodeSrc, time.UTC,
		ln(-1, "attention_tp:0", "-", "-", fakeLimit+"=8"),
		ln(-1, "attention_tp:0", "-", "-", fakeLimit+"=16"),
	)
	checkSummary(t, r, `request_limit[attention_tp:0 - {}] -1=8@1 -1=16@2`)
}

func TestReadPointsSortedByTime(t *testing.T) {
	r := read(t, decodeSrc, time.UTC,
		ln(3, "dp:0", "-", "-", fakeEvent+"=3"),
		ln(1, "dp:0", "-", "-", fakeEvent+"=1"),
		ln(3, "dp:0", "-", "-", fakeEvent+"=4"),
	)
	checkSummary(t, r, `request_tokens[dp:0 - {}] 1=1@2 3=3@1 3=4@3`)
}

func TestReadRoleRestrictedDefinitions(t *testing.T) {
	prefill := SourceInfo{Path: "p_prefill_w0.out", Worker: "prefill-0", Host: "p", Role: "prefill"}
	r := read(t, prefill, time.UTC,
		ln(-1, "attention_tp:0", "-", "-", fakeLimit+"=8"),
		ln(2.23, "attention_tp:0", "-", "-", fakeLimit+"=8,"+fakePages+"=3"),
	)
	checkSummary(t, r, `active_pages[attention_tp:0 - {}] 2.23=3@2 ->-1`)
	for _, role := range []string{"decode", "agg", "aggregated"} {
		if !RoleSet(RoleDecode | RoleAgg).Allows(role) {
			t.Errorf("decode|agg does not allow %q", role)
		}
	}
	if RoleSet(RoleDecode).Allows("") || !RoleSet(0).Allows("") {
		t.Errorf("unknown role: restricted sets must refuse it, the empty set must allow it")
	}
}

func TestReadPhysicalLines(t *testing.T) {
	long := strings.Repeat("x", maxLineBytes+10)
	input := "progress 10%\rprogress 20%\r" + ln(1, "dp:0", "-", "-", fakeEvent+"=1") + "\r\n" +
		long + "\n" +
		"\n" +
		ln(2, "dp:0", "-", "-", fakeEvent+"=2") // no final newline
	r, err := Read(strings.NewReader(input), decodeSrc, time.UTC, newFake())
	if err != nil {
		t.Fatal(err)
	}
	// The first physical line starts with "progress" (the fake grammar needs
	// '[' first); the carriage returns must not shift the next line's number.
	checkSummary(t, r, `request_tokens[dp:0 - {}] 2=2@4`)
	input = ln(1, "dp:0", "-", "-", fakeEvent+"=1") + "\r\n" + long + "\n\n" + ln(2, "dp:0", "-", "-", fakeEvent+"=2")
	r, err = Read(strings.NewReader(input), decodeSrc, time.UTC, newFake())
	if err != nil {
		t.Fatal(err)
	}
	checkSummary(t, r, `request_tokens[dp:0 - {}] 1=1@1 2=2@4`)
	if r.Lines != 4 || r.LongLines != 1 || len(r.Warnings) != 1 || r.Warnings[0] != WarnLongLines {
		t.Errorf("lines=%d long=%d warnings=%q", r.Lines, r.LongLines, r.Warnings)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, line string
		want       string
	}{
		{"non-finite", ln(1, "dp:0", "-", "-", fakeEvent+"=nan"), "logs/host_decode_w0.out:2: non-finite log metric " + fakeEvent},
		{"infinite", ln(1, "dp:0", "-", "-", fakeEvent+"=inf"), "logs/host_decode_w0.out:2: non-finite log metric " + fakeEvent},
		{"null sample", ln(1, "dp:0", "-", "-", fakeActive+"=null"), "logs/host_decode_w0.out:2: null value for " + fakeActive + ", which is not a setting"},
		{"undeclared", ln(1, "dp:0", "-", "-", "log_other=1"), `logs/host_decode_w0.out:2: generator test emitted undeclared metric "log_other"`},
		{"impossible date", "[2026-02-30 00:00:00] dp:0 - - " + fakeEvent + "=1", "logs/host_decode_w0.out:2: test: invalid timestamp: 2026-02-30 00:00:00"},
		{"repeated label", ln(1, "dp:0", "-", "tp=0,tp=1", fakeEvent+"=1"), `logs/host_decode_w0.out:2: observation repeats label "tp"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader("ok\n"+tc.line+"\n"), decodeSrc, time.UTC, newFake())
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestReadTimestampOutOfRange(t *testing.T) {
	_, err := Read(strings.NewReader("[2300-01-01 00:00:00] dp:0 - - "+fakeEvent+"=1\n"), decodeSrc, time.UTC, newFake())
	if !errors.Is(err, ErrInvalidStamp) {
		t.Errorf("err = %v, want ErrInvalidStamp", err)
	}
}

func TestCatalogValidation(t *testing.T) {
	mutate := func(f func(defs []Definition) []Definition) *fakeGen {
		g := newFake()
		g.defs = f(g.defs)
		return g
	}
	other := newFake()
	other.name = "other"
	tests := []struct {
		name string
		gens []Generator
		want error
		text string
	}{
		{"valid", []Generator{newFake()}, nil, ""},
		{"collision between generators", []Generator{newFake(), other}, ErrNameCollision, "log metric name collision: log_test_active_requests (generators test and test)"},
		{"same generator twice", []Generator{newFake(), newFake()}, ErrNameCollision, "log metric name collision: generator test registered twice"},
		{"collision inside a generator", []Generator{mutate(func(d []Definition) []Definition { return append(d, d[0]) })}, ErrNameCollision, ""},
		{"missing reference", []Generator{mutate(func(d []Definition) []Definition { d[0].Reference = "log_test_nothing"; return d })}, ErrInvalidReference,
			"invalid log metric reference: log_test_active_requests refers to missing definition log_test_nothing"},
		{"unit mismatch", []Generator{mutate(func(d []Definition) []Definition { d[1].Unit = "pages"; return d })}, ErrInvalidReference,
			`invalid log metric reference: log_test_active_requests (unit "requests") refers to log_test_request_limit (unit "pages")`},
		{"self reference", []Generator{mutate(func(d []Definition) []Definition { d[0].Reference = d[0].Name; return d })}, ErrInvalidReference, ""},
		{"bad name", []Generator{mutate(func(d []Definition) []Definition { d[0].Name = "active"; return d })}, ErrInvalidDefinition, ""},
		{"no temporal", []Generator{mutate(func(d []Definition) []Definition { d[4].Temporal = 0; return d })}, ErrInvalidDefinition, ""},
		{"no unit", []Generator{mutate(func(d []Definition) []Definition { d[4].Unit = ""; return d })}, ErrInvalidDefinition, ""},
		{"no taxonomy", []Generator{mutate(func(d []Definition) []Definition { d[4].Group = ""; return d })}, ErrInvalidDefinition, ""},
	}
	// The collision message names the generators; the first fake is "test".
	tests[1].text = "log metric name collision: log_test_active_requests (generators test and other)"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defs, err := Catalog(tc.gens...)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.text != "" && !strings.HasSuffix(err.Error(), tc.text) {
				t.Errorf("err = %q, want suffix %q", err, tc.text)
			}
			if tc.want == nil && len(defs) != 5 {
				t.Errorf("catalog has %d definitions", len(defs))
			}
			if _, rerr := Read(strings.NewReader(""), decodeSrc, time.UTC, tc.gens...); !errors.Is(rerr, tc.want) {
				t.Errorf("Read err = %v, want %v", rerr, tc.want)
			}
		})
	}
}
