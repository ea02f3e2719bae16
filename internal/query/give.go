package query

import (
	"fmt"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/shard"
)

// The byte hand-over. The engine reads no files: a reader (the CLI from
// the report directory, the page from its detail scripts) fetches the
// shards and gives them over, named as the report names them.

// Open decodes an uncompressed core shard into an Engine.
func Open(raw []byte) (*Engine, error) { return OpenMarked(raw, nil) }

// OpenMarked is Open calling step, when given, after each of its steps
// ("decoded", "viewed", "indexed"): the page marks them on its start-up
// timeline.
func OpenMarked(raw []byte, step func(string)) (*Engine, error) {
	if step == nil {
		step = func(string) {}
	}
	s, err := shard.Decode(raw)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: "core shard: " + err.Error()}
	}
	step("decoded")
	c, err := catalog.Open(s)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: "core shard: " + err.Error()}
	}
	step("viewed")
	e, err := New(c)
	step("indexed")
	return e, err
}

// GiveEvidence names the evidence shard in Give.
const GiveEvidence = "evidence"

// Give hands the engine the uncompressed bytes of a shard: the evidence
// shard (name GiveEvidence), a metric shard (name: its id, see
// LoadShard) or a profile's detail shard (name: its id).
func (e *Engine) Give(name string, raw []byte) error {
	if name != GiveEvidence {
		if e.isDetailShard(name) {
			return e.loadDetail(name, raw)
		}
		return e.LoadShard(name, raw)
	}
	return e.attachEvidence(shard.Decode(raw))
}

// GiveNamedEvidence hands the engine an evidence shard's bytes with the parts
// the report names them by: each part's SHA-256 is checked against its
// name before anything is decoded, and the shard's own checksum is not
// computed again (shard.DecodeNamed). A part that fails its check fails
// the hand-over with "content hash mismatch" naming its file.
func (e *Engine) GiveNamedEvidence(raw []byte, parts []shard.Part) error {
	return e.attachEvidence(shard.DecodeNamed(raw, parts))
}

func (e *Engine) attachEvidence(s *shard.Shard, err error) error {
	if err == nil {
		err = e.AttachEvidence(s)
	}
	if err != nil {
		return &Error{Code: CodeInternal, Message: fmt.Sprintf("evidence shard: %v", err)}
	}
	return nil
}
