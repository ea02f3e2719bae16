package synth

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func writeTestRun(t testing.TB, c Config) (string, Summary) {
	t.Helper()
	dir := t.TempDir()
	s, err := WriteRun(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	return dir, s
}

func TestDeterministic(t *testing.T) {
	for _, c := range []Config{
		{Seed: 1},
		{Seed: 42, Requests: 3000, Hostile: true},
		{Seed: 4, Requests: 400, Sources: AllSources() &^ SourceAIPerf, Timezone: "Asia/Kolkata",
			OTelUntraced: 0.3, OTelDuplicate: true, ClockOddities: true, Samples: 100_000},
	} {
		t.Run(fmt.Sprintf("seed%d", c.Seed), func(t *testing.T) {
			a, sa := writeTestRun(t, c)
			b, sb := writeTestRun(t, c)
			if len(sa.Files) == 0 {
				t.Fatal("no files written")
			}
			for _, f := range sa.Files {
				x := mustRead(t, filepath.Join(a, f.Path))
				y := mustRead(t, filepath.Join(b, f.Path))
				if !bytes.Equal(x, y) {
					t.Errorf("%s differs between two runs with the same config", f.Path)
				}
				if int64(len(x)) != f.Bytes {
					t.Errorf("%s: summary says %d bytes, file has %d", f.Path, f.Bytes, len(x))
				}
			}
			sa.Dir, sb.Dir = "", ""
			ja, _ := json.Marshal(sa)
			jb, _ := json.Marshal(sb)
			if !bytes.Equal(ja, jb) {
				t.Errorf("summaries differ:\n%s\n%s", ja, jb)
			}
		})
	}
	x, sx := writeTestRun(t, Config{Seed: 1, Requests: 300})
	y, sy := writeTestRun(t, Config{Seed: 2, Requests: 300})
	if bytes.Equal(mustRead(t, filepath.Join(x, sx.Files[0].Path)), mustRead(t, filepath.Join(y, sy.Files[0].Path))) {
		t.Error("seeds 1 and 2 produced the same export")
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestResolveRejects(t *testing.T) {
	for _, c := range []Config{
		{Requests: -1},
		{Concurrency: -2},
		{Scale: -1},
		{Scale: math.NaN()},
		{Scale: 1e12},
	} {
		if _, err := c.Resolve(); err == nil {
			t.Errorf("Resolve(%+v) accepted", c)
		}
	}
	for _, c := range []Config{
		{Sources: SourceAIPerf | SourceAgentPerf},
		{Sources: 1 << 15},
		{Timezone: "Mars/Olympus_Mons"},
		{OTelUntraced: 1.5},
		{OTelUntraced: math.NaN()},
		{Samples: -1},
	} {
		c.Requests = 1
		if _, err := c.Resolve(); err == nil {
			t.Errorf("Resolve(%+v) accepted", c)
		}
	}
	for _, name := range []string{"..", "a/b", `a\b`} {
		if _, err := WriteRun(t.TempDir(), Config{Requests: 1, Benchmark: name}); err == nil {
			t.Errorf("benchmark name %q accepted", name)
		}
	}
}

func TestParseSources(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Sources
		ok   bool
	}{
		{"aiperf", SourceAIPerf, true},
		{" agentperf , otel,tachometer ", SourceAgentPerf | SourceOTel | SourceTachometer, true},
		{DefaultSources.String(), DefaultSources, true},
		{"aiperf,agentperf", 0, false},
		{"aiperf,nsys", 0, false},
		{"", 0, false},
		{",", 0, false},
	} {
		got, err := ParseSources(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSources(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzParseSources checks that the -sources parser never panics and that
// an accepted list survives a round trip through its names.
func FuzzParseSources(f *testing.F) {
	for _, seed := range []string{"aiperf", DefaultSources.String(), "agentperf,otel", "aiperf,agentperf", "x,,y"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, list string) {
		s, err := ParseSources(list)
		if err != nil {
			return
		}
		back, err := ParseSources(s.String())
		if err != nil || back != s {
			t.Fatalf("%q parsed to %v, whose names %q parse to %v, %v", list, s, s.String(), back, err)
		}
	})
}
