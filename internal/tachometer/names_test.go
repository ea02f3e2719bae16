package tachometer

import (
	"bufio"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

func TestParseMetricName(t *testing.T) {
	tests := []struct {
		in     string
		name   string
		labels []Label
		err    error
	}{
		{in: "load1", name: "load1"},
		{in: "x{}", name: "x"},
		{in: `trtllm_num_requests_running{model="test"}`, name: "trtllm_num_requests_running", labels: []Label{{"model", "test"}}},
		{in: "cpu_time_total{mode=idle}", name: "cpu_time_total", labels: []Label{{"mode", "idle"}}},
		{in: "fs{fstype=ext4,mount=root}", name: "fs", labels: []Label{{"fstype", "ext4"}, {"mount", "root"}}},
		{in: `m{ a = " x, y " , b= z }`, name: "m", labels: []Label{{"a", " x, y "}, {"b", "z"}}},
		{in: `m{a="x",}`, name: "m", labels: []Label{{"a", "x"}}},
		{in: `m{a="l1\nl2",b="q\"q",c="b\\s",d="\t\d"}`, name: "m",
			labels: []Label{{"a", "l1\nl2"}, {"b", `q"q`}, {"c", `b\s`}, {"d", `\t\d`}}},
		{in: `m{a=""}`, name: "m", labels: []Label{{"a", ""}}},
		{in: `m{a=}`, name: "m", labels: []Label{{"a", ""}}},
		{in: `m{a="}"}`, name: "m", labels: []Label{{"a", "}"}}},
		{in: `{a="1"}`, name: "", labels: []Label{{"a", "1"}}},
		{in: "m}", name: "m}"},
		{in: `m{a="1"`, err: errUnterminatedLabels},
		{in: `m{a="1}`, err: errUnterminatedQuote},
		{in: `m{a="1\"}`, err: errUnterminatedQuote},
		{in: `m{a="1\}`, err: errUnterminatedEscape},
		{in: `m{a="\`, err: errUnterminatedLabels},
		{in: `m{a="\}`, err: errUnterminatedEscape},
		{in: `m{a="1",a="2"}`, err: errDuplicateLabel},
		{in: `m{a="1" b="2"}`, err: errMissingComma},
		{in: `m{=1}`, err: errMalformedLabels},
		{in: `m{a}`, err: errMalformedLabels},
		{in: `m{,}`, err: errMalformedLabels},
		{in: `m{a b=1}`, err: errMalformedLabels},
	}
	for _, tt := range tests {
		name, labels, err := ParseMetricName(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("ParseMetricName(%q) err = %v, want %v", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || name != tt.name || !reflect.DeepEqual(labels, tt.labels) {
			t.Errorf("ParseMetricName(%q) = %q, %q, %v; want %q, %q", tt.in, name, labels, err, tt.name, tt.labels)
		}
	}
}

func TestFormatBound(t *testing.T) {
	for v, want := range map[float64]string{
		1: "1.0", 0.1: "0.1", 0.005: "0.005", 1e-4: "0.0001", 1e-5: "1e-05", 2.5e-7: "2.5e-07",
		1e15: "1000000000000000.0", 1e16: "1e+16", 1.5e300: "1.5e+300", 1.00000001: "1.00000001",
		-3: "-3.0", math.Inf(1): "+Inf", math.Inf(-1): "-Inf", 123456.789: "123456.789",
	} {
		if got := FormatBound(v); got != want {
			t.Errorf("FormatBound(%v) = %q, want %q", v, got, want)
		}
	}
	if got := FormatBound(math.Copysign(0, -1)); got != "-0.0" {
		t.Errorf("FormatBound(-0) = %q", got)
	}
}

func TestParseBound(t *testing.T) {
	for in, want := range map[string]float64{"1": 1, " 0.5 ": 0.5, "+Inf": math.Inf(1), "-inf": math.Inf(-1), "Infinity": math.Inf(1), "1e400": math.Inf(1)} {
		if got, err := parseBound(in); err != nil || got != want {
			t.Errorf("parseBound(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "NaN", "nan", "0x1p-2", "fast", "1_0", "1.0.0"} {
		if _, err := parseBound(in); err == nil {
			t.Errorf("parseBound(%q) succeeded", in)
		}
	}
}

// encodeLabels writes labels back in the quoted Prometheus form.
func encodeLabels(name string, labels []Label) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('{')
	for i, l := range labels {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.Key)
		b.WriteString(`="`)
		b.WriteString(strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(l.Value))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// FuzzParseMetricName checks that the label parser never panics, that
// accepted names are well formed, and that re-encoding the parsed labels
// parses back to the same identity.
func FuzzParseMetricName(f *testing.F) {
	seeds, err := os.Open("testdata/metric_names.txt")
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(seeds)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f.Add(sc.Text())
	}
	seeds.Close()
	f.Fuzz(func(t *testing.T, in string) {
		defer fuzzlimit.Start(t)()
		name, labels, err := ParseMetricName(in)
		if err != nil {
			if name != "" || labels != nil {
				t.Fatalf("error %v returned a partial result", err)
			}
			return
		}
		if strings.Contains(in, "{") {
			if !strings.HasSuffix(in, "}") || strings.Contains(name, "{") {
				t.Fatalf("accepted %q as name %q", in, name)
			}
		} else if name != in || labels != nil {
			t.Fatalf("name without labels changed: %q → %q %v", in, name, labels)
		}
		seen := map[string]bool{}
		for _, l := range labels {
			if l.Key == "" || seen[l.Key] || strings.ContainsAny(l.Key, "=,") {
				t.Fatalf("bad key %q in %q", l.Key, in)
			}
			seen[l.Key] = true
		}
		if len(labels) == 0 {
			return
		}
		again, relabels, err := ParseMetricName(encodeLabels(name, labels))
		if err != nil || again != name || !reflect.DeepEqual(relabels, labels) {
			t.Fatalf("round trip of %q: %q %q %v, want %q %q", in, again, relabels, err, name, labels)
		}
	})
}
