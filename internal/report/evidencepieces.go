package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

// evidencePieceBudget is the chunk payload one evidence shard holds, less
// room for the shard's own framing. The page gives the engine an evidence
// shard when an answer first needs one of its requests
// (web/src/evidenceload.js), decoding it, checking its SHA-256 in the
// engine and attaching it within that answer. A MiB took more than a
// frame; a quarter ~2.3 ms, an eighth ~1.3 ms (its SHA-256 most of it).
// A sixteenth held one chunk of 64 requests' records (~60 KB on traced
// runs). Chunks of 32 requests deflate to ~32 KB, so 71 KiB holds two: a
// first answer hashes and decodes what it did at 64 and inflates half.
// Three a shard (95 KiB) made the give ~0.4 ms longer, eating the
// saving; one a shard made 50 % more shards for the page to list and
// load (docs/measurements.md, issue 17).
const evidencePieceBudget = 72<<10 - 1024

// EvidencePackBytes bounds the payload of the evidence shards one pack
// script holds (shard.Pack16), at most PackParts of them. Every evidence
// script runs before the page's API opens, and the page's thread pays for
// each script it loads (its response, its element, its compile and run):
// at 100,000 traced requests, 92 scripts of about a MiB took 578–790 ms
// after the first paint, 25 scripts of up to 4 MiB 492–642 ms
// (docs/measurements.md, issue 17). A reader answering one request reads
// one such script (~4 MB).
const EvidencePackBytes = 4 << 20

// addEvidence stages the evidence shard ev as independent pieces
// (catalog.SplitEvidence), each stored as is: its chunks are deflated one
// by one already, and gzip over them saves about 1 % for a full pass of
// compression work.
func addEvidence(files *stageFiles, ev *shard.Shard) (*EvidenceEntry, error) {
	pieces, err := catalog.SplitEvidence(ev, evidencePieceBudget)
	if err != nil {
		return nil, err
	}
	return addEvidencePieces(files, func(f func(catalog.EvidencePiece) error) error {
		for _, p := range pieces {
			if err := f(p); err != nil {
				return err
			}
		}
		return nil
	})
}

// pieceStream is evidence the import encoded as it joined
// (catalog.StreamedEvidence): it hands over its evidence shards one at a
// time, read back from where the build keeps them.
type pieceStream interface {
	EachPiece(budget int, f func(catalog.EvidencePiece) error) error
}

// addStreamedEvidence stages s's evidence shards as addEvidence stages the
// whole shard's, byte for byte, each written as soon as it is cut and
// dropped: the writer holds one evidence shard, not the run's evidence.
func addStreamedEvidence(files *stageFiles, s pieceStream) (*EvidenceEntry, error) {
	return addEvidencePieces(files, func(f func(catalog.EvidencePiece) error) error {
		return s.EachPiece(evidencePieceBudget, f)
	})
}

// addEvidencePieces stages each piece each gives, in order, neighbours
// sharing pack scripts (EvidencePackBytes).
func addEvidencePieces(files *stageFiles, each func(func(catalog.EvidencePiece) error) error) (*EvidenceEntry, error) {
	whole := sha256.New()
	out := &EvidenceEntry{}
	out.Encoding = EncodingIdentity
	pk := &packer{files: files, limit: EvidencePackBytes}
	var pieces []*EvidencePiece // their parts are named when their pack is written
	if err := each(func(p catalog.EvidencePiece) error {
		raw, err := shard.Encode(p.Shard)
		if err != nil {
			return err
		}
		ep := &EvidencePiece{FirstChunk: p.First, Chunks: p.Chunks}
		pk.add(raw, len(raw), &ep.Shard)
		ep.Encoding = EncodingIdentity
		whole.Write(raw)
		out.Bytes += ep.Bytes
		out.DecodedBytes += ep.DecodedBytes
		pieces = append(pieces, ep)
		return nil
	}); err != nil {
		return nil, err
	}
	pk.flush()
	for _, ep := range pieces {
		out.Parts = append(out.Parts, ep.Parts...)
		out.Shards = append(out.Shards, *ep)
	}
	out.ID = hex.EncodeToString(whole.Sum(nil))
	return out, files.err
}

// readEvidencePiece reads, verifies and decodes one evidence shard.
func readEvidencePiece(dir string, p EvidencePiece) (*shard.Shard, error) {
	raw, err := readShard(dir, p.Shard)
	if err != nil {
		return nil, fmt.Errorf("evidence shard %s: %w", p.ID, err)
	}
	s, err := shard.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("evidence shard %s: %w", p.ID, err)
	}
	return s, nil
}

// attachEvidence reads every piece of ev and hands it to attach.
func attachEvidence(dir string, ev *EvidenceEntry, attach func(*shard.Shard) error) error {
	if len(ev.Shards) == 0 {
		return fmt.Errorf("evidence shard: the manifest lists no evidence shards")
	}
	for _, p := range ev.Shards {
		s, err := readEvidencePiece(dir, p)
		if err == nil {
			err = attach(s)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pieceOf is the evidence shard of ev holding chunk k.
func pieceOf(ev *EvidenceEntry, k int) (EvidencePiece, bool) {
	for _, p := range ev.Shards {
		if k >= p.FirstChunk && k < p.FirstChunk+p.Chunks {
			return p, true
		}
	}
	return EvidencePiece{}, false
}

// LoadEvidenceFor attaches to e only the evidence shard holding request
// id's evidence: a question about one request reads about a megabyte of
// evidence, not all of it. A request without server evidence, or one
// attached already, needs nothing.
func (l *Lazy) LoadEvidenceFor(e *query.Engine, id string) error {
	k, ok := e.EvidenceChunkOf(id)
	if l.evidence == nil || !ok || l.Core.HasChunk(k) {
		return nil
	}
	p, ok := pieceOf(l.evidence, k)
	if !ok {
		return fmt.Errorf("evidence shard: the manifest lists no evidence shard holding chunk %d", k)
	}
	s, err := readEvidencePiece(l.Dir, p)
	if err != nil {
		return err
	}
	return e.AttachEvidence(s)
}
