package report

import (
	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
)

// Lazy is a report opened without its evidence shard, as the page opens
// one: a question that needs the requests' server evidence gets
// evidence_pending from the engine (or, for "request", a record marked
// evidence_pending) until LoadEvidence hands the shard over. A one-shot
// reader (dsight query) so decodes only what the asked kind needs: the
// evidence is most of the bytes a report open reads.
type Lazy struct {
	Core     *catalog.Core
	Dir      string
	evidence *EvidenceEntry // nil: the run has no server evidence
}

// OpenLazy reads the manifest and the core shard of the report at path.
func OpenLazy(path string) (*Lazy, error) {
	dir, m, c, err := openCore(path)
	if err != nil {
		return nil, err
	}
	return &Lazy{Core: c, Dir: dir, evidence: m.Entry.Evidence}, nil
}

// LoadEvidence reads the evidence shards and attaches them to e (an engine
// over l.Core); a report without evidence, or one attached already, is a
// no-op.
func (l *Lazy) LoadEvidence(e *query.Engine) error {
	if l.evidence == nil || l.Core.HasEvidence() {
		return nil
	}
	return attachEvidence(l.Dir, l.evidence, e.AttachEvidence)
}
