package report

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/heappeak"
	"github.com/dsight/dsight/internal/model"
)

// streamedDataset is tracedDataset(n) with its evidence encoded as an
// import encodes it (catalog.EvidenceChunks, kept in memory when hold),
// the records dropped.
func streamedDataset(n int, hold bool) (*model.Dataset, *catalog.StreamedEvidence) {
	d := tracedDataset(n)
	chunks := catalog.EvidenceChunks{Hold: hold}
	for i := range d.Evidence {
		chunks.Add(&d.Evidence[i])
	}
	// A record stays as it was added until its chunk is encoded, which
	// Stream waits for; from then on the report must not need it.
	s := chunks.Stream()
	clear(d.Evidence)
	d.Evidence = nil
	d.StreamedEvidence = s
	return d, s
}

// A report of streamed evidence is the report of the same evidence held
// as records, file for file, whether the chunks were kept on disk or in
// memory.
func TestStreamedEvidenceReportMatchesHeld(t *testing.T) {
	const n = 700
	dir := t.TempDir()
	want := filepath.Join(dir, "records")
	if _, err := Write(tracedDataset(n), assets(t), want, Options{}); err != nil {
		t.Fatal(err)
	}
	var again []model.RequestEvidence
	eachTracedRecord(tracedDataset(0).Meta.OriginNS, n, func(r *model.RequestEvidence) { again = append(again, *r) })
	if !reflect.DeepEqual(again, tracedDataset(n).Evidence) {
		t.Fatal("eachTracedRecord makes other records than tracedDataset")
	}
	for _, hold := range []bool{false, true} {
		d, s := streamedDataset(n, hold)
		if held := s.HeldBytes(); (held > 0) != hold {
			t.Fatalf("hold %v: the stream holds %d bytes of evidence", hold, held)
		}
		got := filepath.Join(dir, "streamed")
		if hold {
			got += "-held"
		}
		if _, err := Write(d, assets(t), got, Options{}); err != nil {
			t.Fatal(err)
		}
		if a, b := tree(t, got), tree(t, want); !reflect.DeepEqual(a, b) {
			t.Fatalf("hold %v: the streamed report differs from the records' report", hold)
		}
	}
}

// The import and the report writer together hold one evidence pack of
// the run's evidence at a time (up to EvidencePackBytes of shards, and its
// script), not all of it: the heap rises by well under the evidence's size
// while the chunks are encoded and written. Held until the report is
// written (as they were), the chunks alone exceed the bound.
func TestStreamedEvidenceWriteHoldsOneShard(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes and writes about 50 MB of evidence")
	}
	const n = 8000
	// Collect often, so that the heap's rise is what is live, not the
	// garbage a default pace lets build up over the records' base.
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	a := assets(t)
	dir := t.TempDir()
	var evBytes int
	run := func(hold bool) uint64 {
		d := tracedDataset(n)
		d.Evidence = nil // made again one by one, as a join finishes them
		runtime.GC()
		return heappeak.During(func() {
			chunks := catalog.EvidenceChunks{Hold: hold}
			eachTracedRecord(d.Meta.OriginNS, n, func(r *model.RequestEvidence) { chunks.Add(r) })
			s := chunks.Stream()
			d.StreamedEvidence = s
			m, err := Write(d, a, filepath.Join(dir, "report"), Options{})
			if err != nil {
				t.Error(err)
				return
			}
			evBytes = m.Entry.Evidence.Bytes
		})
	}
	spilled := run(false)
	held := run(true)
	bound := uint64(evBytes) / 2
	t.Logf("evidence %d bytes in the report; heap rose %d bytes spilled, %d held (bound %d)", evBytes, spilled, held, bound)
	if evBytes < 10*EvidencePackBytes {
		t.Fatalf("the run's evidence is %d bytes, too little to tell one pack from all", evBytes)
	}
	if spilled > bound {
		t.Fatalf("writing streamed evidence raised the heap by %d bytes, over %d: the build holds the evidence", spilled, bound)
	}
	if held <= bound {
		t.Fatalf("holding the chunks raised the heap by only %d bytes: the bound %d cannot tell holding from streaming", held, bound)
	}
}

// eachTracedRecord makes tracedDataset's evidence records one at a time,
// the same records in the same order, each dropped after f.
func eachTracedRecord(origin int64, n int, f func(*model.RequestEvidence)) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 6000)
	for i := range n {
		start := origin + int64(i)*1e6
		id := fmt.Sprintf("r%05d", i)
		for k := range noise {
			noise[k] = byte(rng.Uint32())
		}
		f(&model.RequestEvidence{
			Client: model.ClientTiming{ID: id, StartNS: start, EndNS: start + 5e5, Evidence: model.LineRef{Path: "logs/profile_export.jsonl", Line: int64(i + 1)}},
			Spans: []model.JoinedSpan{{Span: &model.Span{
				TraceID: "t", SpanID: fmt.Sprintf("%016x", i), Name: "request.preprocessing", TraceState: hex.EncodeToString(noise),
				StartNS: start, EndNS: start + 1e5, Ref: model.SpanRef{Path: "otel/traces.jsonl", Line: int64(i + 1)},
			}, Join: model.JoinRequestID}},
			Workers: []string{"decode-0"},
		})
	}
}
