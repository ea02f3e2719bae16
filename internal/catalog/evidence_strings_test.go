package catalog

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// spansSharing is one request of n spans whose names, attribute keys and
// values, paths and join labels are the same few strings, each held once
// (as spans read back from the spill share them), or each span's own copy
// when apart is set.
func spansSharing(n int, apart bool) model.RequestEvidence {
	own := func(s string) string {
		if apart {
			return strings.Clone(s)
		}
		return s
	}
	name, key, value, path, worker := "decode", "dynamo.request.id", "0b5d3a6e-3c44-4d0e-9b6c-1f2e3d4c5b6a", "otel/c/traces.jsonl", "decode-0"
	r := model.RequestEvidence{Client: model.ClientTiming{ID: "c", StartNS: 1, EndNS: 2, Evidence: model.LineRef{Path: "c.jsonl", Line: 1}}}
	for k := range n {
		sp := &model.Span{
			TraceID: fmt.Sprintf("%032x", 7), SpanID: fmt.Sprintf("%016x", k), Name: own(name),
			Attrs: model.Attributes{{Key: own(key), Value: model.StringValue(own(value))}},
			Ref:   model.SpanRef{Path: own(path), Line: int64(k + 1)},
		}
		r.Spans = append(r.Spans, model.JoinedSpan{Span: sp, Join: model.JoinRequestID, Worker: own(worker)})
	}
	return r
}

// A string the chunk's table holds is not hashed again when a span hands
// it over once more: only strings with bytes of their own are (each span's
// trace and span id), and a shared one again only when one of those took
// its place in the writer's memory of addresses. Every string was hashed
// at each use before (12 a span here).
func TestEvidenceWriterHashesASharedStringOnce(t *testing.T) {
	const n = 1000
	r := spansSharing(n, false)
	w := NewEvidenceWriter()
	w.AddRequest(&r)
	if limit := 3 * n; w.hashed > limit {
		t.Errorf("%d strings hashed for %d spans sharing their strings, want at most %d", w.hashed, n, limit)
	}
	apart := spansSharing(n, true)
	w = NewEvidenceWriter()
	w.AddRequest(&apart)
	if least := 7 * n; w.hashed < least { // each copy is hashed: the test's counter counts
		t.Errorf("%d strings hashed for %d spans holding copies, want at least %d", w.hashed, n, least)
	}
}

// The chunk is the same whether equal strings share their bytes or not.
func TestEvidenceWriterSharedStringsWriteTheSameChunk(t *testing.T) {
	shared, apart := spansSharing(40, false), spansSharing(40, true)
	a, b := NewEvidenceWriter(), NewEvidenceWriter()
	a.AddRequest(&shared)
	b.AddRequest(&apart)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("sharing strings changed the chunk")
	}
	c, err := DecodeEvidenceChunk(a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Request(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spans) != 40 || got.Spans[39].Span.Name != "decode" || got.Spans[39].Worker != "decode-0" {
		t.Fatalf("decoded %+v", got.Spans[39])
	}
}
