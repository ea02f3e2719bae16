package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dsight/dsight/internal/golden"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/tools/gen/synth"
)

// update is the -update flag every golden test of the tree shares.
var update = golden.Update

// goldenReport is one generated report with every source (client, frontend,
// OTel, worker logs with SGLang and TokenSpeed, Tachometer, Nsight), built
// once for the golden tests of this package.
var goldenReport struct {
	once        sync.Once
	dir, runDir string
	err         error
}

// TestMain removes the golden report the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if goldenReport.dir != "" {
		os.RemoveAll(filepath.Dir(goldenReport.dir))
	}
	os.Exit(code)
}

func goldenDir(t *testing.T) (report, runDir string) {
	t.Helper()
	needAssets(t)
	g := &goldenReport
	g.once.Do(func() {
		tmp, err := os.MkdirTemp("", "dsight-golden-")
		if err != nil {
			g.err = err
			return
		}
		g.runDir, g.dir = filepath.Join(tmp, "run"), filepath.Join(tmp, "report")
		cfg := synth.Config{Seed: 2, Requests: 60, NsightRanges: 400, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel |
			synth.SourceWorkers | synth.SourceSGLang | synth.SourceTokenSpeed | synth.SourceTachometer | synth.SourceNsight}
		if _, g.err = synth.WriteRun(g.runDir, cfg); g.err != nil {
			return
		}
		if g.err = addUnownedSpan(g.runDir); g.err != nil {
			return
		}
		if code := run([]string{"build", g.runDir, "-o", g.dir, "--iteration-timezone", "UTC"}, new(strings.Builder), new(strings.Builder)); code != 0 {
			g.err = os.ErrInvalid
		}
	})
	if g.err != nil {
		t.Fatalf("golden report: %v", g.err)
	}
	return g.dir, g.runDir
}

// addUnownedSpan appends to the run's OTel export a span no request owns
// (the preprocessing of a Dynamo request no client row bridges, one second
// after the first span), for server_spans.
func addUnownedSpan(runDir string) error {
	exports, _ := filepath.Glob(filepath.Join(runDir, "logs", "otel", "*", "traces.jsonl"))
	if len(exports) == 0 {
		return os.ErrNotExist
	}
	b, err := os.ReadFile(exports[0])
	if err != nil {
		return err
	}
	m := regexp.MustCompile(`"startTimeUnixNano":"([0-9]+)"`).FindSubmatch(b)
	if m == nil {
		return os.ErrInvalid
	}
	start, _ := strconv.ParseInt(string(m[1]), 10, 64)
	line := fmt.Sprintf(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"dynamo-frontend"}}]},"scopeSpans":[{"scope":{"name":"dynamo_runtime"},"spans":[{"traceId":"0123456789abcdef0123456789abcdef","spanId":"0123456789abcdef","parentSpanId":"","name":"request.preprocessing","kind":1,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"dynamo.request.id","value":{"stringValue":"ffffffff-0000-4000-8000-000000000001"}},{"key":"dynamo.operation.role","value":{"stringValue":"frontend"}}],"status":{}}]}]}]}`+"\n", start+1e9, start+1e9+5e6)
	f, err := os.OpenFile(exports[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkGolden compares got with testdata/golden/name, after writing the
// temporary paths of the run and report as $RUN and $REPORT.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	report, runDir := goldenDir(t)
	got = strings.ReplaceAll(strings.ReplaceAll(got, report, "$REPORT"), runDir, "$RUN")
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from its golden answer (go test -run Golden -update rewrites it; review the diff):\n%s", name, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n  want " + a + "\n  got  " + b
		}
	}
	return ""
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// goldenQueries are one or more questions per documented kind (and the
// CLI's extra public ones), small enough to read in review. REQ is the
// first request that has a lifecycle.
var goldenQueries = []struct {
	name string
	argv []string
}{
	{"summary", []string{"summary"}},
	{"requests", []string{"requests", "--from", "30", "--to", "60", "--limit", "3"}},
	{"requests_worker", []string{"requests", "--worker", "decode-1", "--min-ttft-ms", "100", "--limit", "2"}},
	{"request", []string{"request", "--request", "REQ"}},
	{"lifecycle", []string{"lifecycle", "--request", "REQ"}},
	{"sessions", []string{"sessions", "--sort", "ttft", "--limit", "2"}},
	{"server_spans", []string{"server_spans", "--limit", "2"}},
	{"iterations", []string{"iterations", "--from", "30", "--to", "40", "--worker", "decode-0", "--rank", "0", "--limit", "2"}},
	{"sources", []string{"sources", "--limit", "4"}},
	{"source", []string{"source", "--id", "0"}},
	{"metric_families", []string{"metric_families"}},
	{"metric_series", []string{"metric_series", "--name", "dynamo_component_inflight_requests"}},
	{"metrics", []string{"metrics", "--name", "dynamo_component_inflight_requests", "--from", "10", "--to", "20"}},
	{"metrics_points", []string{"metrics", "--name", "tokenspeed:num_requests_running", "--worker", "decode-1", "--from", "10", "--to", "15", "--points"}},
	{"profiles", []string{"profiles", "--worker", "decode-0"}},
	{"nsys", []string{"nsys", "--from", "32", "--to", "33", "--worker", "decode-0", "--limit", "3"}},
	{"cpu", []string{"cpu", "--from", "0", "--to", "100", "--profile", "1", "--limit", "5"}},
	{"workers", []string{"workers"}},
	{"stats", []string{"stats", "--from", "30", "--to", "60", "--limit", "3"}},
	{"stats_metric", []string{"stats", "--from", "10", "--to", "20", "--name", "dynamo_component_inflight_requests", "--limit", "2"}},
	{"workers_role", []string{"workers", "--role", "decode", "--limit", "1"}},
}

// firstLifecycleRequest is the id of the first request with a lifecycle.
func firstLifecycleRequest(t *testing.T, report string) string {
	t.Helper()
	code, out, errText := dsight(t, "query", report, "requests", "--limit", "100")
	if code != 0 {
		t.Fatal(errText)
	}
	var page struct {
		Items []struct {
			ID        string `json:"id"`
			Lifecycle bool   `json:"lifecycle_available"`
			Spans     int    `json:"span_count"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatal(err)
	}
	for _, it := range page.Items {
		if it.Spans > 0 {
			return it.ID
		}
	}
	t.Fatal("no request with server spans")
	return ""
}

func TestGoldenQueryKinds(t *testing.T) {
	report, _ := goldenDir(t)
	req := firstLifecycleRequest(t, report)
	for _, q := range goldenQueries {
		argv := append([]string{"query", report}, q.argv...)
		for i, a := range argv {
			if a == "REQ" {
				argv[i] = req
			}
		}
		code, out, errText := dsight(t, argv...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", q.name, code, errText)
			continue
		}
		var items struct {
			Items []json.RawMessage `json:"items"`
		}
		// A golden of an empty list would pin nothing: every list here
		// answers something.
		if json.Unmarshal([]byte(out), &items) == nil && items.Items != nil && len(items.Items) == 0 {
			t.Errorf("%s: empty list", q.name)
		}
		checkGolden(t, q.name+".json", strings.ReplaceAll(out, req, "$REQ"))
	}
}

// Every public kind of the op table has a golden answer above.
func TestGoldenCoversEveryKind(t *testing.T) {
	covered := map[string]bool{}
	for _, q := range goldenQueries {
		covered[q.argv[0]] = true
	}
	for _, k := range query.Names(false) {
		if !covered[k] {
			t.Errorf("kind %s has no golden answer", k)
		}
	}
}

// goldenErrors are questions the report cannot answer: each fails with
// its code, and the message says what was wrong.
var goldenErrors = [][]string{
	{"requests", "--from", "5", "--to", "5"},
	{"requests", "--from", "-1"},
	{"requests", "--to", "1e9"},
	{"requests", "--from", "NaN"},
	{"requests", "--limit", "1001"},
	{"requests", "--limit", "-1"},
	{"requests", "--offset", "1.5"},
	{"requests", "--min-ttft-ms", "-3"},
	{"nsys", "--limit", "10001"},
	{"cpu", "--limit", "201"},
	{"nonsense"},
	{"requests", "--sort", "ttft"},
	{"summary", "--limit", "3"},
	{"requests", "--points"},
	{"workers", "--name", "x"},
	{"request", "--request", "no-such-request"},
	{"lifecycle"},
	{"metrics", "--name", "no_such_metric"},
	{"metrics", "--name", "running"},
	{"metrics", "--worker", "decode-9"},
	{"iterations", "--worker", "decode-9"},
	{"profiles", "--worker", "nobody"},
	{"nsys", "--worker", "decode-9"},
	{"workers", "--worker", "decode-9"},
	{"metrics", "--worker", "frontend", "--rank", "0"},
	{"profiles", "--worker", "frontend", "--rank", "0"},
	{"sessions", "--sort", "size"},
	{"source", "--id", "x"},
	{"requests", "--worker", "decode-9"},
	{"sessions", "--worker", "decode-9"},
	{"timeline"},
}

func TestGoldenQueryErrors(t *testing.T) {
	report, _ := goldenDir(t)
	var b strings.Builder
	for _, argv := range goldenErrors {
		code, out, errText := dsight(t, append([]string{"query", report}, argv...)...)
		if code != 1 || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want exit 1 and nothing on stdout", argv, code, out)
		}
		var env struct {
			OK   bool   `json:"ok"`
			Code string `json:"code"`
		}
		if err := json.Unmarshal([]byte(errText), &env); err != nil || env.OK || (env.Code != "bad_args" && env.Code != "not_found") {
			t.Errorf("%v: not a bad_args/not_found record: %s", argv, errText)
		}
		b.WriteString(strings.Join(argv, " ") + "\n  " + errText)
	}
	checkGolden(t, "errors.txt", b.String())
}
