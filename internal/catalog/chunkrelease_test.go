package catalog

import (
	"sync/atomic"
	"testing"

	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
)

// Then waits for every record added before it to be encoded, whatever
// order the chunks finish in, and every wait has ended once the stream is
// taken; a wait with nothing added ends at once.
func TestEvidenceChunksThenWaitsForEncodedRecords(t *testing.T) {
	base := jointest.JoinWriteRun(t).Requests
	var e EvidenceChunks
	ran := false
	e.Then(func() { ran = true })
	if !ran {
		t.Fatal("a wait with no record added did not end at once")
	}
	const n = 5*EvidencePerChunk + 7
	recs := make([]model.RequestEvidence, n)
	var waits, ended atomic.Int64
	for i := range recs {
		recs[i] = base[i%len(base)]
		e.Add(&recs[i])
		if i%13 == 0 {
			waits.Add(1)
			// Once the wait ends, the records up to i are encoded: a
			// change to them no longer reaches the chunks.
			e.Then(func() {
				ended.Add(1)
				recs[i].Client.ID = "changed after encoding"
			})
		}
	}
	e.Stream()
	if ended.Load() != waits.Load() {
		t.Fatalf("%d of %d waits ended by the time the stream was taken", ended.Load(), waits.Load())
	}
	var want EvidenceChunks
	for i := range n {
		r := base[i%len(base)]
		want.Add(&r)
	}
	es, err := e.Shard()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := want.Shard()
	if err != nil {
		t.Fatal(err)
	}
	got, wantP := es.Tables[0].Columns[0].Strings, ws.Tables[0].Columns[0].Strings
	if len(got) != len(wantP) {
		t.Fatalf("%d chunks, want %d", len(got), len(wantP))
	}
	for k := range wantP {
		if got[k] != wantP[k] {
			t.Fatalf("chunk %d changed by a record changed after its wait ended", k)
		}
	}
}
