package spanspill

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/otlp"
	"github.com/dsight/dsight/tools/gen/synth"
)

// generatedSpans decodes the spans of a generated traced run.
func generatedSpans(t testing.TB) []model.Span {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 3, Requests: 120, Sources: synth.SourceAIPerf | synth.SourceOTel}); err != nil {
		t.Fatal(err)
	}
	res, err := otlp.ReadAll(os.DirFS(filepath.Join(dir, "logs")), otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spans) < 500 {
		t.Fatalf("%d spans; the test needs more", len(res.Spans))
	}
	return res.Spans
}

// evidenceBytes encodes spans as the report does: what a reader of the
// report can see of them, including which share a resource or scope.
func evidenceBytes(spans []model.Span) []byte {
	w := catalog.NewEvidenceWriter()
	for k := range spans {
		w.AddSpan(&model.JoinedSpan{Span: &spans[k]})
	}
	return w.Bytes()
}

// Spans read back from their buckets encode to the bytes the decoded spans
// did, sharing the same resource and scope pointers, in the order added.
func TestRoundTripKeepsEvidenceBytes(t *testing.T) {
	spans := generatedSpans(t)
	// Values a generated run does not record.
	spans[0].Attrs = append(spans[0].Attrs[:len(spans[0].Attrs):len(spans[0].Attrs)],
		model.Attr{Key: "bytes", Value: model.BytesValue([]byte{0, 255})},
		model.Attr{Key: "nested", Value: model.ArrayValue(model.KVListValue(model.Attr{Key: "x", Value: model.BoolValue(true)}), model.Value{}, model.DoubleValue(-1.5))},
		model.Attr{Key: "neg", Value: model.IntValue(-1 << 62)})
	spans[1].Status = model.SpanStatus{Code: 2, Message: "boom"}
	spans[1].Kind, spans[1].Resource, spans[1].Scope = 7, nil, nil

	const n = 7
	s, err := New(t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := make([][]model.Span, n)
	for k := range spans {
		b := int(spans[k].TraceID[len(spans[k].TraceID)-1]) % n
		if err := s.Add(b, &spans[k]); err != nil {
			t.Fatal(err)
		}
		want[b] = append(want[b], spans[k])
	}
	if s.Bytes() == 0 {
		t.Fatal("nothing spilled")
	}
	for b := range n {
		for range 2 { // a bucket reads back the same each time
			got, err := s.Read(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want[b]) || s.Len(b) != len(got) {
				t.Fatalf("bucket %d: %d spans, added %d", b, len(got), len(want[b]))
			}
			if !bytes.Equal(evidenceBytes(got), evidenceBytes(want[b])) {
				t.Fatalf("bucket %d encodes differently once spilled", b)
			}
			for k := range got {
				if got[k].Resource != want[b][k].Resource || got[k].Scope != want[b][k].Scope {
					t.Fatalf("bucket %d span %d: resource or scope is a copy, not the shared pointer", b, k)
				}
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(0, &spans[0]); err == nil {
		t.Fatal("Add after Close")
	}
}

// A damaged bucket is an error, never a panic or a silent short read.
func TestDamagedBucket(t *testing.T) {
	spans := generatedSpans(t)[:50]
	s, err := New(t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for k := range spans {
		if err := s.Add(0, &spans[k]); err != nil {
			t.Fatal(err)
		}
	}
	s.buckets[0].spans++ // one span more than the file holds
	if _, err := s.Read(0); err == nil {
		t.Fatal("read past the spilled bytes")
	}
	s.buckets[0].spans -= 2 // one fewer: bytes are left over
	if _, err := s.Read(0); err == nil {
		t.Fatal("trailing bytes accepted")
	}
}

func FuzzDecodeSpan(f *testing.F) {
	res := []*model.Resource{{}}
	sc := []*model.Scope{{Name: "s"}}
	sp := model.Span{TraceID: "t", SpanID: "s", Name: "n", StartNS: 1, EndNS: 2, Resource: res[0], Scope: sc[0],
		Attrs: model.Attributes{{Key: "k", Value: model.ArrayValue(model.StringValue("v"), model.IntValue(3))}}}
	f.Add(appendSpan(nil, &sp, 1, 1, 0))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		defer fuzzlimit.Start(t)()
		d := decoder{b: b, whole: string(b), resources: res, scopes: sc, paths: []string{"p"}}
		for d.err == nil && len(d.b) > 0 {
			var got model.Span
			d.span(&got)
			if d.err != nil {
				break
			}
			// What decodes encodes to bytes that decode to the same span.
			again := appendSpan(nil, &got, 1, 1, 0)
			e := decoder{b: again, whole: string(again), resources: res, scopes: sc, paths: []string{"p"}}
			var back model.Span
			e.span(&back)
			if e.err != nil || len(e.b) != 0 || !bytes.Equal(appendSpan(nil, &back, 1, 1, 0), again) {
				t.Fatalf("re-encoded span does not decode to itself: %v", e.err)
			}
		}
	})
}
