package logmetric

import (
	"strings"
	"testing"
	"time"
)

func sec(s float64) int64 { return origin.UnixNano() + int64(s*1e9) }

func TestClip(t *testing.T) {
	const rank = "attention_tp:0"
	lines := []string{
		ln(-3, rank, "-", "-", fakeLimit+"=4"),
		ln(-1, rank, "-", "-", fakeLimit+"=8"),
		ln(-1, rank, "-", "-", fakeLimit+"=16"),
		ln(-0.5, rank, "-", "-", fakeEvent+"=1"),
		ln(2.23, rank, "-", "-", fakeActive+"=4,"+fakePages+"=8,"+fakePool+"=128"),
		ln(3, rank, "-", "-", fakeLimit+"=16"),
		ln(5, rank, "-", "-", fakeLimit+"=null"),
		ln(7, rank, "-", "-", fakeLimit+"=32"),
		ln(12, rank, "-", "-", fakeActive+"=6,"+fakeEvent+"=2"),
	}
	r := read(t, decodeSrc, time.UTC, lines...)
	tests := []struct {
		name     string
		from, to float64
		want     []string
	}{
		{"run window keeps the last group before it, conflicts included", 0, 10, []string{
			`request_limit[attention_tp:0 - {}] -1=8@2 -1=16@3 3=16@6 5=null@7 7=32@8`,
			`active_requests[attention_tp:0 - {}] 2.23=4@5 ->0`,
			`active_pages[attention_tp:0 - {}] 2.23=8@5 ->3`,
			`pool_pages[attention_tp:0 - {}] 2.23=128@5`,
		}},
		{"zoom carries the null setting", 6, 9, []string{
			`request_limit[attention_tp:0 - {}] 5=null@7 7=32@8`,
		}},
		{"setting exactly at the start is not preceded", 3, 4, []string{
			`request_limit[attention_tp:0 - {}] 3=16@6`,
		}},
		{"after everything", 20, 30, []string{
			`request_limit[attention_tp:0 - {}] 7=32@8`,
		}},
		{"reference dropped with its points", 12, 12, []string{
			`request_limit[attention_tp:0 - {}] 7=32@8`,
			`request_tokens[attention_tp:0 - {}] 12=2@9`,
			`active_requests[attention_tp:0 - {}] 12=6@9 ->0`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkSummary(t, r.Clip(sec(tc.from), sec(tc.to)), tc.want...)
		})
	}
	// The clipped reference to a vanished series becomes -1.
	c := r.Clip(sec(12), sec(13))
	noLimit := read(t, decodeSrc, time.UTC, ln(1, rank, "-", "-", fakePages+"=1,"+fakePool+"=2"), ln(5, rank, "-", "-", fakePages+"=3"))
	checkSummary(t, noLimit.Clip(sec(4), sec(6)), `active_pages[attention_tp:0 - {}] 5=3@2 ->-1`)
	if c.Window == nil || c.Window.StartNS != sec(12) || c.Window.EndNS != sec(12.001) {
		t.Errorf("clipped window = %+v", c.Window)
	}
	if r.Clip(sec(100), sec(200)).Window != nil {
		t.Errorf("disjoint clip kept a window")
	}
	// Clip must not alias the input.
	c.Series[0].Points[0].Value = -1
	if r.Series[0].Points[len(r.Series[0].Points)-1].Value == -1 {
		t.Errorf("Clip aliases the input points")
	}
}

func TestMerge(t *testing.T) {
	a := read(t, decodeSrc, time.UTC,
		ln(-1, "attention_tp:0", "-", "-", fakeLimit+"=8"),
		ln(2, "attention_tp:0", "-", "-", fakeActive+"=4"),
	)
	other := SourceInfo{Path: "logs/host_decode_w0_e1.out", SourceID: 4, Worker: "decode-0", Host: "host", Role: "decode"}
	b := read(t, other, nil, ln(1, "attention_tp:0", "-", "-", fakeActive+"=1"))
	c := read(t, other, time.UTC,
		ln(3, "attention_tp:0", "-", "-", fakeActive+"=5"),
		ln(4, "attention_tp:0", "-", "-", fakeLimit+"=16"),
	)
	m := Merge(a, b, c)
	checkSummary(t, m,
		`request_limit[attention_tp:0 - {}] -1=8@1`,
		`active_requests[attention_tp:0 - {}] 2=4@2 ->0`,
		`active_requests[attention_tp:0 - {}] 3=5@1 ->3`,
		`request_limit[attention_tp:0 - {}] 4=16@2`,
	)
	if m.Unaligned != 1 || len(m.Warnings) != 1 || m.Lines != 5 {
		t.Errorf("merged counters: unaligned=%d warnings=%q lines=%d", m.Unaligned, m.Warnings, m.Lines)
	}
	if m.Window.StartNS != sec(2) || m.Window.EndNS != sec(3.001) {
		t.Errorf("merged window = %+v", m.Window)
	}
	if m.Series[2].Source.SourceID != 4 || m.Series[2].Points[0].SourceID != 4 {
		t.Errorf("merged evidence lost its source")
	}
	m.Series[1].Reference.Series = 99
	if a.Series[1].Reference.Series != 0 {
		t.Errorf("Merge aliases references")
	}
}

func TestDumpQuotesLogStrings(t *testing.T) {
	r := read(t, decodeSrc, time.UTC, ln(1, "dp:0", `x"y`, `k=v"w`, fakeEvent+"=1"))
	var b strings.Builder
	if err := r.Dump(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`process="x\"y"`, `labels={"k"="v\"w"}`, "2026-09-17T10:58:32Z 1 @3:1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("dump lacks %s:\n%s", want, b.String())
		}
	}
}
