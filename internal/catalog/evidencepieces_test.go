package catalog

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

func piecesDataset(n int) *model.Dataset {
	d := &model.Dataset{Meta: model.Meta{Job: "pieces", OriginNS: 1e18, DurationNS: int64(n) * 1e6}}
	for i := range n {
		id := fmt.Sprintf("r%04d", i)
		d.Requests = append(d.Requests, model.Request{ID: id, Session: "s", Agent: "s", StartNS: int64(i) * 1e6, EndNS: int64(i)*1e6 + 1, Status: "completed",
			Server: &model.RequestServer{SpanCount: 0, Evidence: i}})
		d.Evidence = append(d.Evidence, model.RequestEvidence{Client: model.ClientTiming{ID: id, StartNS: 1e18 + int64(i)*1e6, EndNS: 1e18 + int64(i)*1e6 + 1, Evidence: model.LineRef{Path: "c.jsonl", Line: int64(i + 1)}}})
	}
	return d
}

// Evidence pieces attach in any order; the evidence counts as loaded only
// once every piece is in, each chunk readable as soon as its piece is, and
// the result equals the whole shard attached at once.
func TestEvidencePiecesAttachInAnyOrder(t *testing.T) {
	d := piecesDataset(5*EvidencePerChunk + 3)
	whole := EncodeEvidence(d)
	pieces, err := SplitEvidence(whole, 1) // one chunk a piece
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 6 {
		t.Fatalf("%d pieces, want one per chunk (6)", len(pieces))
	}
	c, err := Open(Encode(d))
	if err != nil {
		t.Fatal(err)
	}
	for n := len(pieces) - 1; n >= 0; n-- {
		if c.HasEvidence() {
			t.Fatalf("evidence complete with piece %d still missing", n)
		}
		raw, err := shard.Encode(pieces[n].Shard)
		if err != nil {
			t.Fatal(err)
		}
		s, err := shard.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AttachEvidence(s); err != nil {
			t.Fatal(err)
		}
		if !c.HasChunk(pieces[n].First) || (n > 0 && c.HasChunk(pieces[n-1].First)) {
			t.Fatalf("after piece %d: chunk held flags wrong", n)
		}
		if _, err := c.ServerChunk(0); (err == nil) != (n == 0) {
			t.Fatalf("after piece %d: reading chunk 0 gave %v", n, err)
		}
	}
	if !c.HasEvidence() {
		t.Fatal("every piece attached, evidence still incomplete")
	}
	want, err := Decode(Encode(d), whole)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Dataset(); !reflect.DeepEqual(got.Evidence, want.Evidence) {
		t.Fatal("the pieces' evidence differs from the whole shard's")
	}
}
