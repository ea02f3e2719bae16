package main

import (
	"testing"

	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// tableQuestions add to the golden ones questions that name no worker
// (naming one reads every table), so every kind that skips tables is asked
// so at least once.
var tableQuestions = [][]string{
	{"requests", "--limit", "1000"},
	{"requests", "--min-ttft-ms", "100", "--search", "a", "--limit", "5"},
	{"sessions", "--sort", "latency", "--limit", "3"},
	{"sessions", "--sort", "ttft", "--search", "a", "--limit", "3"},
	{"sessions", "--min-ttft-ms", "100", "--from", "30", "--to", "60"},
	{"sessions", "--worker", "decode-0", "--limit", "2"},
	{"sessions", "--search", "no-such-request"},
	{"workers", "--role", "prefill"},
	{"iterations", "--from", "30", "--to", "40", "--limit", "3"},
	{"iterations", "--rank", "0", "--limit", "2"},
	{"profiles"},
	{"profiles", "--rank", "0"},
	{"nsys", "--from", "32", "--to", "33", "--limit", "3"},
	{"cpu", "--from", "0", "--to", "100", "--limit", "5"},
	{"metric_series", "--limit", "5"},
	{"metric_families"},
	{"metrics", "--name", "tokenspeed:num_requests_running", "--from", "10", "--to", "15", "--points"},
	{"metrics", "--rank", "0"},
	{"server_spans", "--from", "30", "--to", "60"},
	{"sources", "--offset", "2"},
}

// askWith answers argv over the report at dir as dsight query does: the
// core decoded without the tables SkippedTables and the columns
// SkippedColumns name when skip is set,
// otherwise whole. A failure is returned as its message, to compare too.
func askWith(t *testing.T, dir string, argv []string, skip bool) (string, *report.Lazy) {
	t.Helper()
	_, req, err := queryRequest(append([]string{dir}, argv...), nil)
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	var skipped func(string) bool
	var skippedColumns func(string, string) bool
	if skip {
		skipped = query.SkippedTables(req.Op, req.named())
		skippedColumns = query.SkippedColumns(req.Op, req.named())
	}
	rep, err := report.OpenLazyColumns(dir, skipped, skippedColumns)
	if err != nil {
		t.Fatal(err)
	}
	e, err := query.New(rep.Core)
	if err != nil {
		t.Fatal(err)
	}
	req.internal = true
	got, err := askLazy(e, rep, req)
	if err != nil {
		return "error: " + err.Error(), rep
	}
	return string(got), rep
}

// dsight query decodes only the core tables the kind asked reads: every
// golden question, every golden error and the questions above answer
// byte for byte as over the whole core, and the kinds that read no
// request (or no metric) tables leave them undecoded. The golden core is
// framed, so those answers come from the frames of the tables read alone
// (TestQueryChecksOnlyTheFramesItReads: and from no other frame).
func TestQueryDecodesOnlyTheTablesItReads(t *testing.T) {
	dir, _ := goldenDir(t)
	if m := readManifest(t, dir); m.Entry.Core.Encoding != report.EncodingFrames || len(m.Entry.Core.Frames) < 10 {
		t.Fatalf("the golden core is stored %q in %d frames, not framed by table", m.Entry.Core.Encoding, len(m.Entry.Core.Frames))
	}
	id := firstLifecycleRequest(t, dir)
	questions := append([][]string{}, tableQuestions...)
	for _, q := range goldenQueries {
		questions = append(questions, q.argv)
	}
	questions = append(questions, goldenErrors...)
	skippedRequests, skippedMetrics := 0, 0
	for _, argv := range questions {
		argv = append([]string{}, argv...)
		for i := range argv {
			if argv[i] == "REQ" {
				argv[i] = id
			}
		}
		want, whole := askWith(t, dir, argv, false)
		got, some := askWith(t, dir, argv, true)
		if got != want {
			t.Errorf("%v: over the tables it reads it answers\n%s\nwant\n%s", argv, got, want)
		}
		if whole.Core.Requests.N == 0 || len(whole.Core.Metrics) == 0 {
			t.Fatal("the golden report lacks requests or metric series")
		}
		if some.Core.Requests.N == 0 {
			skippedRequests++
		}
		if len(some.Core.Metrics) == 0 {
			skippedMetrics++
		}
	}
	if skippedRequests < 10 || skippedMetrics < 5 {
		t.Errorf("the request tables were left undecoded for %d questions, the metric tables for %d: SkippedTables skips (almost) nothing", skippedRequests, skippedMetrics)
	}
	for _, kind := range []string{"sources", "metric_families", "iterations", "server_spans"} {
		_, rep := askWith(t, dir, []string{kind}, true)
		if rep.Core.Requests.N != 0 || len(rep.Core.Server.Request) != 0 {
			t.Errorf("%s: the request tables were decoded", kind)
		}
	}
	_, rep := askWith(t, dir, []string{"requests"}, true)
	if len(rep.Core.Metrics) != 0 || len(rep.Core.MetricFamilies) != 0 {
		t.Error("requests: the metric catalog was decoded")
	}
}
