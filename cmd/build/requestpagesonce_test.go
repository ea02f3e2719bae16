package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// A page of requests written from its rows reads no part of the core a
// second time: the frames the page was chosen over are held by the
// question's reader, so with the report's detail files gone after the
// open the page is still written, byte for byte the whole core's.
func TestRequestPagesReadTheirFramesOnce(t *testing.T) {
	defer func(n int) { pageRowsFrom = n }(pageRowsFrom)
	pageRowsFrom = 0 // the golden run's table is small: take the two passes anyway
	golden, _ := goldenDir(t)
	for _, argv := range [][]string{
		{"requests"},
		{"requests", "--from", "30", "--to", "40", "--offset", "2", "--limit", "3"},
		{"requests", "--min-ttft-ms", "100", "--search", "a", "--limit", "5"},
	} {
		dir := filepath.Join(t.TempDir(), "report")
		if err := os.CopyFS(dir, os.DirFS(golden)); err != nil {
			t.Fatal(err)
		}
		want, _ := askWith(t, dir, argv, false)
		_, req, err := queryRequest(append([]string{dir}, argv...), nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, r, err := openReading(dir, req)
		if err != nil || r == nil {
			t.Fatalf("%v: %v (reader %v)", argv, err, r)
		}
		e, err := query.New(rep.Core)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(dir, report.DetailDir)); err != nil {
			t.Fatal(err)
		}
		pagesFromReader(e, r, req)
		got := ""
		if b, err := askLazy(e, rep, req); err != nil {
			got = "error: " + err.Error()
		} else {
			got = string(b)
		}
		if got != want {
			t.Errorf("%v: written from the frames held it answers\n%s\nwant\n%s", argv, got, want)
		}
	}
}
