package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/dsight/dsight/internal/model"
)

// EvidenceChunk is a decoded evidence chunk: its shared tables are read
// once, each record only when asked for.
type EvidenceChunk struct {
	strs      []string
	resources []*model.Resource
	scopes    []*model.Scope
	records   [][]byte
}

var errTruncated = errors.New("truncated")

// DecodeEvidenceChunk reads a chunk written by EvidenceWriter.
func DecodeEvidenceChunk(b []byte) (*EvidenceChunk, error) {
	if len(b) < len(chunkMagic)+1 || string(b[:len(chunkMagic)]) != chunkMagic {
		return nil, errors.New("evidence chunk: bad magic")
	}
	if v := b[len(chunkMagic)]; v != chunkVersion {
		return nil, fmt.Errorf("evidence chunk: version %d, want %d", v, chunkVersion)
	}
	c := &EvidenceChunk{}
	r := &chunkReader{b: b[len(chunkMagic)+1:], c: c}
	n := r.count(1)
	c.strs = make([]string, 0, n)
	for range n {
		l := r.count(1)
		if r.err != nil {
			break
		}
		c.strs = append(c.strs, string(r.b[:l]))
		r.b = r.b[l:]
	}
	n = r.count(1)
	for range n {
		c.resources = append(c.resources, &model.Resource{Attrs: r.attrs(0)})
	}
	n = r.count(1)
	for range n {
		c.scopes = append(c.scopes, &model.Scope{Name: r.str(), Version: r.str(), Attrs: r.attrs(0)})
	}
	n = r.count(1)
	lens := make([]int, 0, n)
	for range n {
		lens = append(lens, r.count(1))
	}
	for _, l := range lens {
		if r.err != nil {
			break
		}
		if l > len(r.b) {
			r.fail(errTruncated)
			break
		}
		c.records = append(c.records, r.b[:l:l])
		r.b = r.b[l:]
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Errorf("%d trailing bytes", len(r.b)))
	}
	if r.err != nil {
		return nil, fmt.Errorf("evidence chunk: %w", r.err)
	}
	return c, nil
}

// Len is the number of records in the chunk.
func (c *EvidenceChunk) Len() int { return len(c.records) }

// Request decodes the request evidence in slot.
func (c *EvidenceChunk) Request(slot int) (*model.RequestEvidence, error) {
	req := &model.RequestEvidence{}
	if err := c.request(slot, req, nil); err != nil {
		return nil, err
	}
	return req, nil
}

// request decodes slot into req; with u, its spans and their attributes go
// into u's buffers.
func (c *EvidenceChunk) request(slot int, req *model.RequestEvidence, u *Reuse) error {
	if slot < 0 || slot >= len(c.records) {
		return fmt.Errorf("evidence chunk: slot %d of %d", slot, len(c.records))
	}
	r := &chunkReader{b: c.records[slot], c: c}
	if u != nil {
		r.arena, r.useArena = u.attrs[:0], true
	}
	*req = model.RequestEvidence{Client: r.client()}
	req.ServerIDs = r.strList()
	for range r.count(2) {
		req.BridgeEvidence = append(req.BridgeEvidence, r.lineRef())
	}
	n := r.count(8)
	if r.err == nil && n > 0 {
		var spans []model.Span
		if u != nil {
			req.Spans, spans = u.spans(n)
		} else {
			req.Spans, spans = make([]model.JoinedSpan, 0, n), make([]model.Span, n)
		}
		prev := req.Client.StartNS
		for k := range n {
			req.Spans = append(req.Spans, r.span(&spans[k], prev))
			prev = spans[k].StartNS
		}
	}
	for range r.count(8) {
		req.Engine = append(req.Engine, model.EngineEntry{
			Worker: r.str(), Host: r.str(), Role: r.str(), ClientID: r.str(), DisaggID: r.optStr(),
			ServerID: r.str(), Process: r.optStr(), Ref: r.lineRef(), ObservedAtNS: r.optInt(), IdentityAmbiguous: r.bool(),
		})
	}
	for range r.count(8) {
		req.Bindings = append(req.Bindings, model.WorkerBinding{
			Worker: r.str(), Host: r.str(), Role: r.str(), ServerID: r.str(), Process: r.optStr(),
			Ref: r.lineRef(), Basis: r.str(), Ambiguous: r.bool(),
		})
	}
	req.Workers = r.strList()
	req.Issues = r.strList()
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Errorf("%d trailing bytes", len(r.b)))
	}
	if u != nil {
		u.attrs = r.arena
	}
	if r.err != nil {
		return fmt.Errorf("evidence chunk: request %d: %w", slot, r.err)
	}
	return nil
}

// Span decodes the server span in slot.
func (c *EvidenceChunk) Span(slot int) (*model.JoinedSpan, error) {
	if slot < 0 || slot >= len(c.records) {
		return nil, fmt.Errorf("evidence chunk: slot %d of %d", slot, len(c.records))
	}
	r := &chunkReader{b: c.records[slot], c: c}
	sp := r.span(&model.Span{}, 0)
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Errorf("%d trailing bytes", len(r.b)))
	}
	if r.err != nil {
		return nil, fmt.Errorf("evidence chunk: span %d: %w", slot, r.err)
	}
	return &sp, nil
}

// chunkReader reads varints and table references; the first error sticks
// and every later read returns a zero value.
type chunkReader struct {
	b   []byte
	c   *EvidenceChunk
	err error
	// With useArena, a span's attributes are appended to arena.
	arena    []model.Attr
	useArena bool
}

func (r *chunkReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *chunkReader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errTruncated)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *chunkReader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(errTruncated)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length whose items take at least minBytes each, so a
// corrupt length never allocates beyond what the input could hold.
func (r *chunkReader) count(minBytes int) int {
	v := r.uint()
	if v > uint64(len(r.b)/minBytes) {
		r.fail(fmt.Errorf("count %d exceeds the %d bytes left", v, len(r.b)))
		return 0
	}
	return int(v)
}

func (r *chunkReader) bool() bool {
	if len(r.b) == 0 {
		r.fail(errTruncated)
		return false
	}
	v := r.b[0]
	r.b = r.b[1:]
	if v > 1 {
		r.fail(fmt.Errorf("bool byte %d", v))
	}
	return v == 1
}

func (r *chunkReader) str() string {
	i := r.uint()
	if i >= uint64(len(r.c.strs)) {
		r.fail(fmt.Errorf("string %d of %d", i, len(r.c.strs)))
		return ""
	}
	return r.c.strs[i]
}

func (r *chunkReader) optStr() *string {
	i := r.uint()
	if i == 0 || r.err != nil {
		return nil
	}
	if i > uint64(len(r.c.strs)) {
		r.fail(fmt.Errorf("string %d of %d", i-1, len(r.c.strs)))
		return nil
	}
	s := r.c.strs[i-1]
	return &s
}

func (r *chunkReader) optInt() *int64 {
	if !r.bool() {
		return nil
	}
	v := r.int()
	return &v
}

func (r *chunkReader) strList() []string {
	n := r.count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, r.str())
	}
	return out
}

func (r *chunkReader) lineRef() model.LineRef { return model.LineRef{Path: r.str(), Line: r.int()} }

func (r *chunkReader) spanRef() model.SpanRef {
	return model.SpanRef{Path: r.str(), Line: r.int(), Ordinal: int(r.int())}
}

func (r *chunkReader) client() model.ClientTiming {
	c := model.ClientTiming{ID: r.str(), StartNS: r.int()}
	c.EndNS = c.StartNS + r.int()
	c.FirstNS = r.optInt()
	c.Evidence = r.lineRef()
	return c
}

func (r *chunkReader) span(s *model.Span, prevStart int64) model.JoinedSpan {
	s.TraceID, s.SpanID, s.ParentSpanID, s.TraceState, s.Name = r.str(), r.str(), r.str(), r.str(), r.str()
	s.Kind = model.SpanKind(r.int())
	s.StartNS = prevStart + r.int()
	s.EndNS = s.StartNS + r.int()
	s.Status = model.SpanStatus{Code: model.StatusCode(r.int()), Message: r.str()}
	s.Attrs = r.attrs(0)
	s.Resource = sharedRef(r, r.c.resources, "resource")
	s.Scope = sharedRef(r, r.c.scopes, "scope")
	s.Ref = r.spanRef()
	sp := model.JoinedSpan{Span: s, Join: r.str(), Worker: r.str(), WorkerBasis: r.str()}
	if r.bool() {
		sp.Routing = &model.RoutingContext{Phase: r.str(), RouteSpanID: r.str(), RouteRef: r.spanRef(), Basis: r.str()}
	}
	return sp
}

// sharedRef reads a shared resource or scope number: 0 is nil.
func sharedRef[T any](r *chunkReader, table []*T, what string) *T {
	i := r.uint()
	if i == 0 {
		return nil
	}
	if i > uint64(len(table)) {
		r.fail(fmt.Errorf("%s %d of %d", what, i-1, len(table)))
		return nil
	}
	return table[i-1]
}

func (r *chunkReader) attrs(depth int) model.Attributes {
	if depth > maxValueDepth {
		r.fail(errors.New("attributes nested too deeply"))
		return nil
	}
	n := r.count(2)
	if n == 0 {
		return nil
	}
	if depth == 0 && r.useArena {
		// Nested values (depth > 0) never reach the arena, so it does not
		// grow under this loop.
		start := len(r.arena)
		for range n {
			k := r.str()
			r.arena = append(r.arena, model.Attr{Key: k, Value: r.value(depth)})
		}
		return r.arena[start:len(r.arena):len(r.arena)]
	}
	out := make(model.Attributes, 0, n)
	for range n {
		out = append(out, model.Attr{Key: r.str(), Value: r.value(depth)})
	}
	return out
}

func (r *chunkReader) value(depth int) model.Value {
	if len(r.b) == 0 {
		r.fail(errTruncated)
		return model.Value{}
	}
	kind := model.ValueKind(r.b[0])
	r.b = r.b[1:]
	switch kind {
	case model.KindEmpty:
		return model.Value{}
	case model.KindString:
		return model.StringValue(r.str())
	case model.KindBytes:
		return model.BytesValue([]byte(r.str()))
	case model.KindInt:
		return model.IntValue(r.int())
	case model.KindDouble:
		if len(r.b) < 8 {
			r.fail(errTruncated)
			return model.Value{}
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
		r.b = r.b[8:]
		return model.DoubleValue(v)
	case model.KindBool:
		return model.BoolValue(r.bool())
	case model.KindArray:
		if depth >= maxValueDepth {
			r.fail(errors.New("values nested too deeply"))
			return model.Value{}
		}
		n := r.count(1)
		items := make([]model.Value, 0, n)
		for range n {
			items = append(items, r.value(depth+1))
		}
		return model.ArrayValue(items...)
	case model.KindKVList:
		return model.KVListValue(r.attrs(depth + 1)...)
	}
	r.fail(fmt.Errorf("value kind %d", kind))
	return model.Value{}
}
