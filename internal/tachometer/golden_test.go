package tachometer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/dsight/dsight/internal/golden"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// scrapeRows turns a Prometheus text exposition into the rows Tachometer
// stores for one scrape: labels sorted by key and joined as k="v", the
// value unchanged, every row stamped with the scrape's timestamp.
func scrapeRows(t *testing.T, path string, ts int64, endpoint string, extra map[string]string) []Row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []Row
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cut := strings.LastIndexByte(text, ' ')
		value, err := strconv.ParseFloat(text[cut+1:], 64)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		name, labels, err := ParseMetricName(text[:cut])
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		sort.Slice(labels, func(i, j int) bool { return labels[i].Key < labels[j].Key })
		rows = append(rows, Row{TS: ts, Name: encodeLabels(name, labels), Value: value, Endpoint: endpoint, Extra: extra})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// goldenSeries is one series as the golden file records it.
type goldenSeries struct {
	SeriesInfo
	Labels map[string]string `json:"labels"`
	SeriesStats
	// Delivered are the points as [seconds from the first scrape, value,
	// source, row].
	Delivered [][4]any `json:"delivered"`
}

// TestGoldenDCGM reads a realistic capture built from a real DCGM scrape of
// a 4-GPU GB200 node: three scrapes in final.parquet, and an Arrow tail that
// repeats the last one and adds a fourth after the window.
func TestGoldenDCGM(t *testing.T) {
	root := filepath.Join(t.TempDir(), "tachometer", "local")
	node := map[string]string{"hostname": "lyris0073.lyris.clusters.nvidia.com"}
	var final []Row
	for i := int64(0); i < 3; i++ {
		final = append(final, scrapeRows(t, "testdata/dcgm-gb200.txt", t0+5*i*sec, "dcgm", node)...)
	}
	writeParquet(t, filepath.Join(root, "final.parquet"), final, layoutOpts{clean: true})
	tail := scrapeRows(t, "testdata/dcgm-gb200.txt", t0+10*sec, "dcgm", node)
	tail = append(tail, scrapeRows(t, "testdata/dcgm-gb200.txt", t0+15*sec, "dcgm", node)...)
	writeArrowStream(t, filepath.Join(root, "current.arrow"), tail, layoutOpts{})

	sink, res := read(t, root, Options{Window: window(0, 12)})
	var files, series, families []any
	for _, f := range res.Files {
		rel, err := filepath.Rel(root, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		f.Path = filepath.ToSlash(rel)
		f.MinNS -= t0
		f.MaxNS -= t0
		files = append(files, f)
	}
	for i, info := range sink.series {
		gs := goldenSeries{SeriesInfo: info, Labels: map[string]string{}, SeriesStats: res.Series[i]}
		for _, l := range info.Labels {
			gs.Labels[l.Key] = l.Value
		}
		for _, p := range sink.pointsOf(i) {
			gs.Delivered = append(gs.Delivered, [4]any{float64(p.TimeNS-t0) / 1e9, p.Value, p.Source, p.Row})
		}
		series = append(series, gs)
	}
	for _, f := range res.Families {
		families = append(families, f)
	}
	var doc bytes.Buffer
	doc.WriteString("{\n")
	writeList(t, &doc, "files", files)
	writeList(t, &doc, "series", series)
	writeList(t, &doc, "families", families)
	fmt.Fprintf(&doc, " \"warnings\": %s,\n \"audit\": %s\n", compactJSON(t, res.Warnings), compactJSON(t, res.Audit))
	doc.WriteString("}\n")
	golden.Check(t, "testdata/dcgm-capture.golden.json", doc.Bytes())

	if res.Audit.Families != 19 || len(sink.series) != 76 || res.Audit.Duplicates != 76 || res.Audit.OutOfWindow != 76 {
		t.Errorf("audit = %+v, series = %d; want 19 families, 76 series, the repeated scrape deduplicated", res.Audit, len(sink.series))
	}
}

// writeList writes `"name": [` with one compact JSON element per line,
// which keeps the golden file short and its diffs readable.
func writeList(t *testing.T, w *bytes.Buffer, name string, items []any) {
	t.Helper()
	fmt.Fprintf(w, " %q: [\n", name)
	for i, item := range items {
		comma := ","
		if i == len(items)-1 {
			comma = ""
		}
		fmt.Fprintf(w, "  %s%s\n", compactJSON(t, item), comma)
	}
	w.WriteString(" ],\n")
}

func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
