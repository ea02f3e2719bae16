package query

import (
	"bytes"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// bindingsFixture is serverFixture with bindings that repeat, lack a
// process, name a second host, and one that names no worker.
func bindingsFixture() *model.Dataset {
	d := serverFixture()
	ev := &d.Evidence[0]
	ref := func(path string, line int64) model.LineRef { return model.LineRef{Path: path, Line: line} }
	ev.Bindings = []model.WorkerBinding{
		{Worker: "decode-0", Host: "node-2", Role: "decode", Process: ptr("p1"), Ref: ref("logs/node-2_decode_w0.out", 4), Basis: "b"},
		{Worker: "decode-0", Host: "node-2", Role: "decode", Process: ptr("p1"), Ref: ref("logs/node-2_decode_w0.out", 9), Basis: "b"},
		{Worker: "decode-0", Host: "node-3", Role: "decode", Ref: ref("logs/node-3_decode_w0.out", 2), Basis: "b", Ambiguous: true},
		{Worker: "prefill-0", Host: "node-1", Role: "prefill", Process: ptr("p0"), Ref: ref("logs/node-1_prefill_w0.out", 7), Basis: "b"},
		{Worker: "", Host: "node-9", Ref: ref("logs/x.out", 1), Basis: "b"},
	}
	return d
}

// The workers answer reads the bindings from the core's worker_bindings
// index: it needs no evidence shard, and answers exactly as the walk over
// every evidence chunk does.
func TestWorkersReadTheBindingIndex(t *testing.T) {
	d := bindingsFixture()
	core, err := catalog.Open(catalog.Encode(d))
	if err != nil {
		t.Fatal(err)
	}
	if !core.WorkerBindings.Present || len(core.WorkerBindings.Worker) != 3 {
		t.Fatalf("worker_bindings: %+v, want 3 distinct rows", core.WorkerBindings)
	}
	if core.HasEvidence() {
		t.Fatal("the core alone holds the evidence")
	}
	indexed, err := New(core)
	if err != nil {
		t.Fatal(err)
	}
	got := mustResult(t, indexed, `{"op":"workers","args":{}}`)

	walked, err := catalog.Open(catalog.Encode(d))
	if err != nil {
		t.Fatal(err)
	}
	walked.WorkerBindings = catalog.WorkerBindings{}
	if err := walked.AttachEvidence(catalog.EncodeEvidence(d)); err != nil {
		t.Fatal(err)
	}
	e, err := New(walked)
	if err != nil {
		t.Fatal(err)
	}
	want := mustResult(t, e, `{"op":"workers","args":{}}`)
	if !bytes.Equal(got, want) {
		t.Errorf("from the index:\n%s\nfrom the chunks:\n%s", got, want)
	}
	for _, s := range []string{`"bindings":3`, `"hosts":["node-2","node-3"]`, `"host":null`, `"processes":["p1"]`, `"logs/node-3_decode_w0.out"`} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("answer lacks %s:\n%s", s, got)
		}
	}
}

// A core without server evidence holds no worker_bindings table: such
// cores stay byte for byte as they were.
func TestNoWorkerBindingsWithoutEvidence(t *testing.T) {
	s := catalog.Encode(fixture())
	if _, ok := s.Table(catalog.TableWorkerBindings); ok {
		t.Error("a core without server evidence has a worker_bindings table")
	}
}
