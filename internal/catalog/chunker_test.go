package catalog

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Evidence encoded as each request is finished gives the shard the whole
// dataset's encoding gives, and keeps nothing of a record once added.
func TestEvidenceChunksMatchEncodeEvidence(t *testing.T) {
	base := jointest.JoinWriteRun(t).Requests
	for _, n := range []int{1, EvidencePerChunk, 2*EvidencePerChunk + 5} {
		d := &model.Dataset{}
		for i := range n {
			r := base[i%len(base)]
			r.Client.ID = fmt.Sprintf("client-%d", i)
			d.Evidence = append(d.Evidence, r)
		}
		want, err := shard.Encode(EncodeEvidence(d))
		if err != nil {
			t.Fatal(err)
		}
		var e EvidenceChunks
		for i := range d.Evidence {
			rec := d.Evidence[i]
			spans := append([]model.JoinedSpan(nil), rec.Spans...)
			rec.Spans = spans
			if k := e.Add(&rec); k != i {
				t.Fatalf("request %d added as %d", i, k)
			}
			// Added means encoded: the caller may reuse the record.
			rec.Client.ID = "reused"
			for s := range spans {
				spans[s].Worker = "reused"
			}
		}
		got, err := shard.Encode(e.Shard())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) || e.Len() != n {
			t.Fatalf("%d requests: chunk by chunk encodes %d bytes, the dataset %d", n, len(got), len(want))
		}
	}
	var none EvidenceChunks
	if none.Shard() != nil {
		t.Fatal("a shard without evidence")
	}
}
