package join

import "strings"

// Links are distinct (trace, Dynamo request id) pairs, noted by a caller
// that sees every span before the join (a check pass over a spill), so
// that the join links traces without a pass of its own (Stream.LinkAll).
// A pair of a 32-digit lowercase hex trace id and a canonical UUID is
// kept as their 32 bytes, any other as a copy of its text: a run of a
// million requests notes a million pairs, held until the join.
type Links struct {
	bytes map[[32]byte]struct{}
	text  map[[2]string]struct{}
}

// NewLinks is an empty set of pairs.
func NewLinks() *Links {
	return &Links{bytes: map[[32]byte]struct{}{}, text: map[[2]string]struct{}{}}
}

// Note adds the pair of a valid span of trace traceID that records
// Dynamo request id requestID (LinkRequestID); "" links nothing. The
// strings are not kept: the span may live in a buffer the caller reuses.
func (l *Links) Note(traceID, requestID string) {
	if requestID == "" {
		return
	}
	t, okT := traceKey(traceID)
	r, okR := parseUUID(requestID)
	if okT && okR {
		var k [32]byte
		copy(k[:16], t[:])
		copy(k[16:], r[:])
		l.bytes[k] = struct{}{}
		return
	}
	if _, ok := l.text[[2]string{traceID, requestID}]; !ok {
		l.text[[2]string{strings.Clone(traceID), strings.Clone(requestID)}] = struct{}{}
	}
}

// Len is the number of distinct pairs.
func (l *Links) Len() int { return len(l.bytes) + len(l.text) }

// LinkAll links every pair of l (LinkID), in no set order: the trace
// owners come out the same in any.
func (s *Stream) LinkAll(l *Links) {
	var buf [36]byte
	for k := range l.bytes {
		r := [16]byte(k[16:])
		i, ok := s.j.byServer[string(formatUUID(&buf, &r))]
		if ok {
			s.j.traceOwner.linkKey([16]byte(k[:16]), i)
		}
	}
	for k := range l.text {
		s.LinkID(k[0], k[1])
	}
}
