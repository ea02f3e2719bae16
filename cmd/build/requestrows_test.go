package main

import (
	"encoding/json"
	"testing"

	"github.com/dsight/dsight/internal/query"
)

// A question about one request decodes of the request tables that
// request's rows alone (report.OpenLazyRequest): its answer, or its error,
// is byte for byte the one over the whole core, for a request with server
// evidence, one without (when the report has one), an unknown id and a misapplied flag, and the
// core it is answered over holds the one request asked (none for an
// unknown id) and at most its one row of server evidence.
func TestQueryDecodesOnlyTheRequestRowsItReads(t *testing.T) {
	dir, _ := goldenDir(t)
	traced := firstLifecycleRequest(t, dir)
	code, out, errText := dsight(t, "query", dir, "requests", "--limit", "1000")
	if code != 0 {
		t.Fatal(errText)
	}
	var page struct {
		Total int `json:"total"`
		Items []struct {
			ID    string `json:"id"`
			Spans int    `json:"span_count"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatal(err)
	}
	// Every golden request may have server evidence: then the first.
	plain, last := page.Items[0].ID, page.Items[len(page.Items)-1].ID
	for _, it := range page.Items {
		if it.Spans == 0 {
			plain = it.ID
			break
		}
	}
	if page.Total < 10 {
		t.Fatalf("the golden report holds %d requests", page.Total)
	}
	for _, q := range []struct {
		argv []string
		rows int
	}{
		{[]string{"request", "--request", traced}, 1},
		{[]string{"lifecycle", "--request", traced}, 1},
		{[]string{"request", "--id", plain}, 1},
		{[]string{"lifecycle", "--id", plain}, 1},
		{[]string{"request", "--id", last}, 1},
		{[]string{"request", "--request", "00000000-0000-4000-8000-000000000000"}, 0},
		{[]string{"lifecycle", "--request", "no-such-request"}, 0},
		{[]string{"request", "--request", traced, "--limit", "3"}, 1},
	} {
		want, whole := askWith(t, dir, q.argv, false)
		if whole.Core.Requests.N != page.Total {
			t.Fatalf("the whole core holds %d requests, the page says %d", whole.Core.Requests.N, page.Total)
		}
		_, req, err := queryRequest(append([]string{dir}, q.argv...), nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := openFor(dir, req)
		if err != nil {
			t.Fatalf("%v: %v", q.argv, err)
		}
		e, err := query.New(rep.Core)
		if err != nil {
			t.Fatalf("%v: %v", q.argv, err)
		}
		got := ""
		if b, err := askLazy(e, rep, req); err != nil {
			got = "error: " + err.Error()
		} else {
			got = string(b)
		}
		if got != want {
			t.Errorf("%v: over its rows it answers\n%s\nwant\n%s", q.argv, got, want)
		}
		if n := rep.Core.Requests.N; n != q.rows {
			t.Errorf("%v: the core opened holds %d requests, want %d", q.argv, n, q.rows)
		}
		if n := len(rep.Core.Server.Request); n > q.rows {
			t.Errorf("%v: the core opened holds %d rows of server evidence", q.argv, n)
		}
	}
}
