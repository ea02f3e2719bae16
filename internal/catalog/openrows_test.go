package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/shard"
)

// coreFrames are the table frames of d's core shard.
func coreFrames(t *testing.T, s *shard.Shard) [][]byte {
	t.Helper()
	raw, err := shard.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	spans, err := shard.FrameSpans(raw)
	if err != nil {
		t.Fatal(err)
	}
	var frames [][]byte
	for _, sp := range spans[1 : len(spans)-1] {
		frames = append(frames, raw[sp.Start:sp.End])
	}
	return frames
}

// pickedCore decodes frames as RequestPicks(id) does, without the id order.
func pickedCore(t *testing.T, frames [][]byte, id string, chunks int) (*Core, error) {
	t.Helper()
	tables, kept, err := shard.DecodeTableFramesPicking(frames, 0, nil, RequestPicks(id))
	if err != nil {
		t.Fatal(err)
	}
	s := &shard.Shard{Kind: Kind}
	var rows []int
	for i, tb := range tables {
		if PicksReadTable(tb.Name) {
			s.Tables = append(s.Tables, tb)
		}
		if tb.Name == TableRequests {
			rows = kept[i]
		}
	}
	return OpenRows(s, rows, chunks, nil, nil)
}

// A core of one request holds that request's row, its server evidence
// row renumbered to it and the id order over it; its evidence piece
// attaches by the run's chunk count, which the one row no longer tells.
func TestOpenRowsHoldsTheRequestAsked(t *testing.T) {
	d := piecesDataset(3*EvidencePerChunk + 2)
	whole, err := Open(Encode(d))
	if err != nil {
		t.Fatal(err)
	}
	frames := coreFrames(t, Encode(d))
	pieces, err := SplitEvidence(EncodeEvidence(d), 1)
	if err != nil {
		t.Fatal(err)
	}
	row := EvidencePerChunk + 5
	id := fmt.Sprintf("r%04d", row)
	c, err := pickedCore(t, frames, id, len(pieces))
	if err != nil {
		t.Fatal(err)
	}
	r := &c.Requests
	if r.N != 1 || r.ID[0] != id || r.Start[0] != whole.Requests.Start[row] || len(r.ByID) != 1 {
		t.Fatalf("the core holds %d requests %v (start %v), want %s", r.N, r.ID, r.Start, id)
	}
	if len(c.Server.Request) != 1 || c.Server.Request[0] != 0 || c.Server.Chunk[0] != 1 {
		t.Fatalf("server evidence rows %v in chunks %v, want request 0 in chunk 1", c.Server.Request, c.Server.Chunk)
	}
	raw, err := shard.Encode(pieces[1].Shard)
	if err != nil {
		t.Fatal(err)
	}
	piece, err := shard.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AttachEvidence(piece); err != nil {
		t.Fatal(err)
	}
	if !c.HasRequestEvidence(0) {
		t.Fatal("the request's evidence chunk is not held once its piece is attached")
	}
	// Counted by the one row (chunk 1 of 2), the piece would be refused.
	c, err = pickedCore(t, frames, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AttachEvidence(piece); err == nil || !strings.Contains(err.Error(), "out of step") {
		t.Fatalf("attaching by the kept rows' chunks gave %v", err)
	}
	// An unknown id: no request, no server evidence.
	c, err = pickedCore(t, frames, "r9999", len(pieces))
	if err != nil || c.Requests.N != 0 || len(c.Server.Request) != 0 {
		t.Fatalf("an unknown id opens %d requests, %d server rows, %v", c.Requests.N, len(c.Server.Request), err)
	}
}

// A server evidence row naming a request not kept is refused, never
// renumbered onto another request.
func TestOpenRowsRefusesARowNotKept(t *testing.T) {
	d := piecesDataset(4)
	tables, _, err := shard.DecodeTableFramesPicking(coreFrames(t, Encode(d)), 0, nil, RequestPicks("r0002"))
	if err != nil {
		t.Fatal(err)
	}
	s := &shard.Shard{Kind: Kind}
	for _, tb := range tables {
		if PicksReadTable(tb.Name) {
			s.Tables = append(s.Tables, tb)
		}
	}
	if _, err := OpenRows(s, []int{1}, 1, nil, nil); err == nil || !strings.Contains(err.Error(), "not a row kept") {
		t.Fatalf("got %v", err)
	}
}
