package catalog

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Evidence encoded chunk by chunk, each chunk on a goroutine of its own
// with a writer reused from an earlier chunk, gives the shard the whole
// dataset's encoding gives.
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
			if k := e.Add(&d.Evidence[i]); k != i {
				t.Fatalf("request %d added as %d", i, k)
			}
		}
		sh, err := e.Shard()
		if err != nil {
			t.Fatal(err)
		}
		got, err := shard.Encode(sh)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) || e.Len() != n {
			t.Fatalf("%d requests: chunk by chunk encodes %d bytes, the dataset %d", n, len(got), len(want))
		}
	}
	var none EvidenceChunks
	if sh, err := none.Shard(); sh != nil || err != nil {
		t.Fatal("a shard without evidence")
	}
}

// A writer reset after one chunk encodes the next as a fresh one does:
// nothing of the first (strings, resources, scopes, records) leaks into it.
func TestEvidenceWriterResetEncodesAsNew(t *testing.T) {
	base := jointest.JoinWriteRun(t).Requests
	w := NewEvidenceWriter()
	for k := range base {
		w.AddRequest(&base[k])
	}
	w.layout()
	for start := range min(3, len(base)) {
		w.reset()
		fresh := NewEvidenceWriter()
		for k := start; k < len(base); k += 2 {
			w.AddRequest(&base[k])
			fresh.AddRequest(&base[k])
		}
		if got, want := w.layout(), fresh.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("from request %d: a reset writer encodes %d bytes, a fresh one %d", start, len(got), len(want))
		}
	}
}
