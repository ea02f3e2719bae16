package catalog

import "github.com/dsight/dsight/internal/model"

// Reuse holds the storage RequestInto decodes into, kept from one request
// to the next: a reader that walks every request of a report (a trace
// export) otherwise allocates every span and attribute list afresh, most
// of what it allocates.
type Reuse struct {
	joined []model.JoinedSpan
	span   []model.Span
	attrs  []model.Attr
}

// spans returns an empty joined-span list with room for n and n cleared
// spans.
func (u *Reuse) spans(n int) ([]model.JoinedSpan, []model.Span) {
	if cap(u.span) < n {
		u.span, u.joined = make([]model.Span, n), make([]model.JoinedSpan, 0, n)
	}
	s := u.span[:n]
	clear(s)
	return u.joined[:0], s
}

// RequestInto is Request decoding into req with u's storage: req's spans
// and their attributes are valid until u's next use.
func (c *EvidenceChunk) RequestInto(slot int, req *model.RequestEvidence, u *Reuse) error {
	return c.request(slot, req, u)
}
