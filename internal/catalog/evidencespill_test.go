package catalog

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Chunks kept on disk give the stream a held build gives: the same
// evidence shards (EachPiece is SplitEvidence), the same records read back
// (Each, what the SQL store reads), and no payload in memory.
func TestSpilledEvidenceMatchesHeld(t *testing.T) {
	base := jointest.JoinWriteRun(t).Requests
	var spilled, held EvidenceChunks
	held.Hold = true
	for i := range 5*EvidencePerChunk + 3 {
		r := base[i%len(base)]
		r.Client.ID = fmt.Sprintf("client-%d", i)
		spilled.Add(&r)
		held.Add(&r)
	}
	s, h := spilled.Stream(), held.Stream()
	if s.spill == nil || s.HeldBytes() != 0 || h.HeldBytes() == 0 {
		t.Fatalf("spilled stream holds %d bytes, held stream %d", s.HeldBytes(), h.HeldBytes())
	}
	hs, err := h.Shard()
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{1, 3000, 1 << 20} {
		want, err := SplitEvidence(hs, budget)
		if err != nil {
			t.Fatal(err)
		}
		var got []EvidencePiece
		if err := s.EachPiece(budget, func(p EvidencePiece) error { got = append(got, p); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("budget %d: %d evidence shards, want %d", budget, len(got), len(want))
		}
		for k := range got {
			a, _ := shard.Encode(got[k].Shard)
			b, _ := shard.Encode(want[k].Shard)
			if string(a) != string(b) || got[k].First != want[k].First || got[k].Chunks != want[k].Chunks {
				t.Fatalf("budget %d: evidence shard %d differs from SplitEvidence's", budget, k)
			}
		}
	}
	records := func(st *StreamedEvidence) []*model.RequestEvidence {
		var out []*model.RequestEvidence
		if err := st.Each(func(_ int, ev *model.RequestEvidence) error { out = append(out, ev); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if a, b := records(s), records(h); len(a) != s.Len() || !reflect.DeepEqual(a, b) {
		t.Fatalf("the spilled stream reads back %d records, unlike the held stream's %d", len(a), len(b))
	}
}

// A chunk kept on disk that cannot be read back (the disk failing under
// the build) is an error from the evidence shard, not a crash.
func TestUnreadableSpillIsAnError(t *testing.T) {
	base := jointest.JoinWriteRun(t).Requests
	var spilled EvidenceChunks
	for i := range 2*EvidencePerChunk + 1 {
		r := base[i%len(base)]
		r.Client.ID = fmt.Sprintf("client-%d", i)
		spilled.Add(&r)
	}
	s := spilled.Stream()
	if s.spill == nil {
		t.Fatal("the stream kept no chunk on disk")
	}
	if err := s.spill.f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	if sh, err := s.Shard(); err == nil || sh != nil {
		t.Fatalf("a truncated spill read back as a shard (%v)", err)
	}
	if _, err := EvidenceShard(&model.Dataset{StreamedEvidence: s}); err == nil || !strings.Contains(err.Error(), "read back server evidence chunk") {
		t.Fatalf("EvidenceShard: %v", err)
	}
}
