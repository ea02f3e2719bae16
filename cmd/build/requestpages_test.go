package main

import (
	"encoding/json"
	"testing"

	"github.com/dsight/dsight/internal/query"
)

// A page of requests is chosen over the columns its range and filters
// read and written from a core of the page's rows alone: every answer, or
// error, is byte for byte the whole core's, and the core the page is
// chosen over leaves the printed columns undecoded (a question naming a
// worker reads them all).
func TestQueryWritesRequestPagesFromTheirRows(t *testing.T) {
	defer func(n int) { pageRowsFrom = n }(pageRowsFrom)
	pageRowsFrom = 0 // the golden run's table is small: take the two passes anyway
	dir, _ := goldenDir(t)
	code, out, errText := dsight(t, "query", dir, "requests", "--from", "30", "--limit", "1")
	if code != 0 {
		t.Fatal(errText)
	}
	var page struct {
		Items []struct {
			ID      string `json:"id"`
			Session string `json:"session"`
			Agent   string `json:"agent"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil || len(page.Items) != 1 {
		t.Fatalf("no request after 30 s: %v", err)
	}
	it := page.Items[0]
	for _, q := range []struct {
		argv  []string
		whole bool // the question reads every column
	}{
		{[]string{"requests"}, false},
		{[]string{"requests", "--limit", "1000"}, false},
		{[]string{"requests", "--from", "30", "--to", "40", "--offset", "2", "--limit", "3"}, false},
		{[]string{"requests", "--min-ttft-ms", "100", "--search", "a", "--limit", "5"}, false},
		{[]string{"requests", "--search", it.ID[:8]}, false},
		{[]string{"requests", "--session", it.Session}, false},
		{[]string{"requests", "--agent", it.Agent, "--limit", "2"}, false},
		{[]string{"requests", "--from", "1e9"}, false},
		{[]string{"requests", "--limit", "0"}, false},
		{[]string{"requests", "--limit", "1001"}, false},
		{[]string{"requests", "--worker", "decode-0", "--limit", "4"}, true},
	} {
		want, _ := askWith(t, dir, q.argv, false)
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
		pagesFromRows(e, dir, req)
		got := ""
		if b, err := askLazy(e, rep, req); err != nil {
			got = "error: " + err.Error()
		} else {
			got = string(b)
		}
		if got != want {
			t.Errorf("%v: written from its rows it answers\n%s\nwant\n%s", q.argv, got, want)
		}
		if r := &rep.Core.Requests; (r.Status == nil) == q.whole || (r.OriginalStart.V == nil) == q.whole {
			t.Errorf("%v: the printed columns decoded: %t, want %t", q.argv, r.Status != nil, q.whole)
		}
	}
}

// A small requests table is decoded whole for a page of requests: the
// two passes cost more than they save below pageRowsFrom bytes.
func TestSmallRequestTablesAreReadOnce(t *testing.T) {
	dir, _ := goldenDir(t)
	_, req, err := queryRequest([]string{dir, "requests", "--limit", "5"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := openFor(dir, req)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Core.Requests.Status == nil {
		t.Fatal("a small core's page of requests was chosen over its filter columns alone")
	}
}
