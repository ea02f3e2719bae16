package logmetric

import (
	"math"
	"testing"
	"time"
)

func TestSummarizeCapacity(t *testing.T) {
	const rank = "attention_tp:0"
	limit := func(sec float64, v string) string { return ln(sec, rank, "-", "-", fakeLimit+"="+v) }
	active := func(sec float64, v string) string { return ln(sec, rank, "-", "-", fakeActive+"="+v) }
	pages := func(sec float64, active, pool string) string {
		vals := fakePages + "=" + active
		if pool != "" {
			vals += "," + fakePool + "=" + pool
		}
		return ln(sec, rank, "-", "-", vals)
	}
	type want struct {
		samples     int
		peak        float64
		limit       string
		unavailable int
		usage       string // "" = no usage
	}
	tests := []struct {
		name     string
		lines    []string
		observed string
		from, to float64
		want     want
	}{
		{"constant limit", []string{limit(-1, "8"), active(2.23, "4"), active(5.23, "6")}, fakeActive, 0, 10,
			want{2, 6, "8", 0, "75%"}},
		{"zoom recomputes", []string{limit(-1, "8"), active(2.23, "4"), active(5.23, "6")}, fakeActive, 0, 3,
			want{1, 4, "8", 0, "50%"}},
		{"changed limit", []string{limit(-1, "8"), active(2.23, "4"), limit(3, "16"), active(5.23, "12")}, fakeActive, 0, 10,
			want{2, 12, "8–16 (changed)", 0, "75%"}},
		{"missing limit", []string{active(2.23, "4"), active(5.23, "6")}, fakeActive, 0, 10,
			want{2, 6, "unavailable", 2, ""}},
		{"limit on another rank", []string{ln(-1, "attention_tp:1", "-", "-", fakeLimit+"=8"), active(2.23, "4"), active(5.23, "6")}, fakeActive, 0, 10,
			want{2, 6, "unavailable", 2, ""}},
		{"late config is not moved backwards", []string{active(2.23, "4"), limit(3, "8"), active(5.23, "6")}, fakeActive, 0, 10,
			want{2, 6, "8", 1, "75%"}},
		{"null invalidates", []string{limit(-1, "8"), active(2.23, "4"), limit(3, "null"), active(5.23, "6")}, fakeActive, 0, 10,
			want{2, 6, "8", 1, "50%"}},
		{"conflicting config at one timestamp", []string{limit(-1, "8"), limit(-1, "16"), active(2.23, "4"), active(5.23, "6")}, fakeActive, 0, 10,
			want{2, 6, "unavailable", 2, ""}},
		{"identical duplicate config is no conflict", []string{limit(-1, "8"), limit(-1, "8"), active(2.23, "4")}, fakeActive, 0, 10,
			want{1, 4, "8", 0, "50%"}},
		{"window carries a null, then a new limit", []string{limit(-1, "8"), limit(3, "16"), limit(5, "null"), limit(7, "32"), active(6, "4"), active(8, "8")}, fakeActive, 6, 9,
			want{2, 8, "32", 1, "25%"}},
		{"setting at the window start supersedes the carried one", []string{limit(-1, "8"), limit(2, "16"), active(3, "4")}, fakeActive, 2, 9,
			want{1, 4, "16", 0, "25%"}},
		{"zero limit is shown but gives no usage", []string{limit(-1, "0"), active(2, "4")}, fakeActive, 0, 9,
			want{1, 4, "0", 1, ""}},
		{"sampled pool needs the same timestamp", []string{pages(2.23, "8", "128"), pages(5.23, "64", ""), pages(6, "32", "256")}, fakePages, 0, 10,
			want{3, 64, "128–256 (changed)", 1, "12.5%"}},
		{"conflicting observed samples are a gap", []string{limit(-1, "8"), active(2, "4"), active(2, "6"), active(3, "2")}, fakeActive, 0, 10,
			want{1, 2, "8", 0, "25%"}},
		{"no sample in range", []string{limit(-1, "8"), active(2.23, "4")}, fakeActive, 3, 10,
			want{0, 0, "8", 0, ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := read(t, decodeSrc, time.UTC, tc.lines...)
			var obs, ref *Series
			for i := range r.Series {
				s := &r.Series[i]
				if s.Definition.Name == tc.observed && s.Rank.Index == 0 {
					obs = s
				}
			}
			if obs == nil {
				t.Fatalf("no %s series", tc.observed)
			}
			if obs.Reference.Series >= 0 {
				ref = &r.Series[obs.Reference.Series]
			}
			from := origin.UnixNano() + int64(tc.from*1e9)
			to := origin.UnixNano() + int64(tc.to*1e9)
			c := SummarizeCapacity(obs, ref, from, to)
			usage := ""
			if c.HasUsage {
				usage = FormatPercent(c.HighestUsage)
			}
			got := want{c.Samples, c.Peak, c.LimitText(), c.Unavailable, usage}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestSummarizeCapacityEvents(t *testing.T) {
	events := &Series{Definition: Definition{Temporal: TemporalEvent}, Points: []Point{
		{TimeNS: 5, Value: 2}, {TimeNS: 5, Value: 2}, {TimeNS: 5, Value: 9}, {TimeNS: 1, Value: 1},
	}}
	c := SummarizeCapacity(events, nil, 0, 10)
	if c.Samples != 4 || c.Peak != 9 || c.Unavailable != 4 {
		t.Errorf("events: %+v, want every unsorted event counted", c)
	}
}

func TestFormatting(t *testing.T) {
	quantities := map[float64]string{
		6: "6", 4096: "4,096", 1234567.5: "1,234,567.5", 0.123456: "0.1235", -1500: "-1,500", -0.00001: "0", 0.75: "0.75",
	}
	for v, want := range quantities {
		if got := FormatQuantity(v); got != want {
			t.Errorf("FormatQuantity(%v) = %q, want %q", v, got, want)
		}
	}
	percents := map[float64]string{0.75: "75%", 0.5: "50%", 0.125: "12.5%", 1: "100%", 0.33333: "33.3%", math.NaN(): "unavailable"}
	for v, want := range percents {
		if got := FormatPercent(v); got != want {
			t.Errorf("FormatPercent(%v) = %q, want %q", v, got, want)
		}
	}
	c := Capacity{Limit: LimitChanged, LimitMin: 8, LimitMax: 4096}
	if got := c.LimitText(); got != "8–4,096 (changed)" {
		t.Errorf("LimitText = %q", got)
	}
}
