package report

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A host that holds the evidence shards but has not given them (the page
// once its API is open, web/src/evidenceload.js) is asked for exactly the
// chunks an answer needs: giving the shard holding a request's chunk from
// inside the call makes the answer the one a fully opened report gives,
// other requests' shards stay ungiven, an answer over every request asks
// for every missing chunk, and a host that gives nothing leaves the
// request pending.
func TestEvidenceSourceIsAskedForTheChunksAnAnswerNeeds(t *testing.T) {
	d, dir := tracedReport(t, 600)
	fe := openWhole(t, dir)
	l, e := openLazy(t, dir)
	var asked [][]int
	give := true
	e.SetEvidenceSource(func(chunks []int) error {
		asked = append(asked, slices.Clone(chunks))
		for _, k := range chunks {
			if p, ok := pieceOf(l.evidence, k); ok && give && !l.Core.HasChunk(k) {
				s, err := readEvidencePiece(dir, p)
				if err == nil {
					err = e.AttachEvidence(s)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	last := d.Requests[len(d.Requests)-1].ID
	k, _ := e.EvidenceChunkOf(last)
	for _, q := range []string{`{"op":"request","args":{"id":"` + last + `"}}`, `{"op":"lifecycle","args":{"id":"` + last + `"}}`} {
		if got, want := string(e.Handle([]byte(q))), string(fe.Handle([]byte(q))); got != want {
			t.Fatalf("%s: through the source\n%s\nfully opened\n%s", q, got, want)
		}
	}
	if !slices.Equal(asked[0], []int{k}) || len(asked) != 1 {
		t.Fatalf("the source was asked for %v, want once for chunk %d", asked, k)
	}
	if l.Core.HasChunk(0) {
		t.Fatal("asking about the last request gave the first request's evidence shard too")
	}

	give = false
	q := []byte(`{"op":"lifecycle","args":{"id":"` + d.Requests[0].ID + `"}}`)
	if got := string(e.Handle(q)); !strings.Contains(got, `"code":"evidence_pending"`) {
		t.Fatalf("a source without the shard: %s, want evidence_pending", got)
	}

	give, asked = true, nil
	missing := l.Core.MissingChunks()
	if got, want := string(e.Handle([]byte(`{"op":"perfetto"}`))), string(fe.Handle([]byte(`{"op":"perfetto"}`))); got != want {
		t.Fatalf("the Perfetto export through the source differs from the fully opened report's")
	}
	if len(asked) != 1 || !slices.Equal(asked[0], missing) {
		t.Fatalf("the export asked for %v, want once for the %d chunks missing", asked, len(missing))
	}
	if !l.Core.HasEvidence() {
		t.Fatal("an export over every request left evidence chunks ungiven")
	}
}

// An error from the source (a shard the host holds but found damaged)
// fails the answer that needed it, naming the cause, and is never taken
// for pending.
func TestEvidenceSourceErrorFailsTheAnswer(t *testing.T) {
	_, dir := tracedReport(t, 70)
	_, e := openLazy(t, dir)
	e.SetEvidenceSource(func([]int) error { return errors.New("detail/x.js: content hash mismatch") })
	for _, q := range []string{`{"op":"request","args":{"id":"r00001"}}`, `{"op":"lifecycle","args":{"id":"r00001"}}`} {
		got := string(e.Handle([]byte(q)))
		if !strings.Contains(got, "content hash mismatch") || strings.Contains(got, "evidence_pending") {
			t.Fatalf("%s: %s, want the source's error", q, got)
		}
	}
}
