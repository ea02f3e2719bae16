package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// dsight query opens the report without its evidence shard and reads it
// only for an answer that needs it: every golden question answers exactly
// as over a fully opened report, and the kinds that need no server
// evidence leave the shard unread.
func TestQueryReadsEvidenceOnlyWhenNeeded(t *testing.T) {
	dir, _ := goldenDir(t)
	full, err := report.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Server.Request) == 0 {
		t.Fatal("the golden report has no server evidence to leave unread")
	}
	id := firstLifecycleRequest(t, dir)
	needs := map[string]bool{"request": true, "lifecycle": true}
	for _, q := range append(goldenQueries[:len(goldenQueries):len(goldenQueries)], struct {
		name string
		argv []string
	}{"workers_decode", []string{"workers", "--worker", "decode-0"}}) {
		argv := append([]string{}, q.argv...)
		for i := range argv {
			if argv[i] == "REQ" {
				argv[i] = id
			}
		}
		_, req, err := queryRequest(append([]string{dir}, argv...), nil)
		if err != nil {
			t.Fatal(err)
		}
		fullEngine, err := query.New(full)
		if err != nil {
			t.Fatal(err)
		}
		want, err := askLoading(fullEngine, full, dir, req)
		if err != nil {
			t.Fatalf("%v: %v", argv, err)
		}
		rep, err := report.OpenLazy(dir)
		if err != nil {
			t.Fatal(err)
		}
		e, err := query.New(rep.Core)
		if err != nil {
			t.Fatal(err)
		}
		got, err := askLazy(e, rep, req)
		if err != nil {
			t.Fatalf("%v lazily: %v", argv, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%v: the lazily opened report answers\n%s\nwant\n%s", argv, got, want)
		}
		if read := rep.Core.HasEvidence(); read != needs[req.Op] {
			t.Errorf("%v: evidence read %v, want %v", argv, read, needs[req.Op])
		}
		if !json.Valid(got) {
			t.Errorf("%v: not JSON", argv)
		}
	}
}
