package catalog

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/dsight/dsight/internal/model"
)

// An evidence chunk stores the joined server evidence of a group of
// requests (or a group of server spans no request owns) compactly, so a
// report keeps the evidence rather than its rendering: the engine decodes
// one record on demand and internal/query shapes it, deriving the lifecycle
// with internal/lifecycle. Rendered JSON was ~36 KB per traced request; the
// evidence is a few hundred bytes once its strings are shared within the
// chunk. docs/format/evidence.md describes the layout byte by byte.
//
// Layout (all integers unsigned LEB128 varints unless noted):
//
//	magic "DSLC" · version
//	string count · per string: length, bytes
//	resource count · per resource: attributes
//	scope count · per scope: name, version, attributes
//	record count · per record: byte length
//	records, concatenated (each a request, or a span, as the chunk holds)
//
// Strings are indices into the string table; an optional string is 0 for
// nil and index+1 otherwise. Signed integers are zigzag varints.
const (
	chunkMagic   = "DSLC"
	chunkVersion = 2
	// maxValueDepth bounds nested OTLP arrays and lists while decoding.
	maxValueDepth = 64
)

// EvidenceWriter encodes joined requests, or server spans, into one chunk.
// The encoding is a pure function of the records and their order.
type EvidenceWriter struct {
	strs  map[string]uint64
	table []string
	// same remembers table strings by the address of their bytes: the
	// names, attribute keys, paths and join labels of a chunk's spans are
	// mostly one string each, shared by every span, and a string whose
	// bytes are a table string's own needs no hash. Only table strings are
	// kept here, which the table already holds unchanged until Bytes.
	same  [256]sameStr
	empty uint64 // the index of "" plus one, once it is in the table
	// hashed counts the strings looked up by content (tests).
	hashed    int
	resources shared[model.Resource]
	scopes    shared[model.Scope]
	// records are the encoded records, concatenated; ends[k] is where
	// record k ends.
	records []byte
	ends    []int
	buf     []byte
	out     []byte // what Bytes laid out last, reused by reset
}

// NewEvidenceWriter returns an empty chunk.
func NewEvidenceWriter() *EvidenceWriter {
	return &EvidenceWriter{strs: map[string]uint64{}}
}

// Len is the number of records added.
func (w *EvidenceWriter) Len() int { return len(w.ends) }

// reset empties w for another chunk, keeping its storage: a build encodes
// thousands of chunks, and the string table's map, grown afresh for each,
// was a third of its lookups' cost. The bytes Bytes returned last are
// overwritten by the next Bytes.
func (w *EvidenceWriter) reset() {
	clear(w.strs)
	clear(w.table) // the strings of the last chunk's records may go
	w.table = w.table[:0]
	w.same = [256]sameStr{}
	w.empty, w.hashed = 0, 0
	w.resources.reset()
	w.scopes.reset()
	w.records, w.ends = w.records[:0], w.ends[:0]
}

// AddRequest encodes r and returns its slot in the chunk.
func (w *EvidenceWriter) AddRequest(r *model.RequestEvidence) int {
	w.buf = w.buf[:0]
	w.client(r.Client)
	w.strList(r.ServerIDs)
	w.uint(uint64(len(r.BridgeEvidence)))
	for _, ref := range r.BridgeEvidence {
		w.lineRef(ref)
	}
	w.uint(uint64(len(r.Spans)))
	prev := r.Client.StartNS
	for k := range r.Spans {
		w.span(&r.Spans[k], prev)
		prev = r.Spans[k].StartNS
	}
	w.uint(uint64(len(r.Engine)))
	for _, e := range r.Engine {
		w.str(e.Worker)
		w.str(e.Host)
		w.str(e.Role)
		w.str(e.ClientID)
		w.optStr(e.DisaggID)
		w.str(e.ServerID)
		w.optStr(e.Process)
		w.lineRef(e.Ref)
		w.optInt(e.ObservedAtNS)
		w.bool(e.IdentityAmbiguous)
	}
	w.uint(uint64(len(r.Bindings)))
	for _, b := range r.Bindings {
		w.str(b.Worker)
		w.str(b.Host)
		w.str(b.Role)
		w.str(b.ServerID)
		w.optStr(b.Process)
		w.lineRef(b.Ref)
		w.str(b.Basis)
		w.bool(b.Ambiguous)
	}
	w.strList(r.Workers)
	w.strList(r.Issues)
	return w.record()
}

// AddSpan encodes a server span no request owns and returns its slot.
func (w *EvidenceWriter) AddSpan(sp *model.JoinedSpan) int {
	w.buf = w.buf[:0]
	w.span(sp, 0)
	return w.record()
}

func (w *EvidenceWriter) record() int {
	w.records = append(w.records, w.buf...)
	w.ends = append(w.ends, len(w.records))
	return len(w.ends) - 1
}

// Bytes returns the finished chunk.
func (w *EvidenceWriter) Bytes() []byte {
	out := w.layout()
	w.out = nil // the caller's
	return out
}

// layout lays the chunk out into w's own buffer, valid until the next
// layout: the deflater compresses it and lets it go.
func (w *EvidenceWriter) layout() []byte {
	// Resources and scopes intern their strings too; encode them before the
	// string table is written out.
	var shared []byte
	w.buf, shared = w.buf[:0], nil
	w.uint(uint64(len(w.resources.list)))
	for _, res := range w.resources.list {
		w.attrs(res.Attrs, 0)
	}
	w.uint(uint64(len(w.scopes.list)))
	for _, sc := range w.scopes.list {
		w.str(sc.Name)
		w.str(sc.Version)
		w.attrs(sc.Attrs, 0)
	}
	shared = append(shared, w.buf...)

	size := len(chunkMagic) + 1 + len(shared) + 10*(len(w.table)+len(w.ends)+2) + len(w.records)
	for _, s := range w.table {
		size += len(s)
	}
	out := w.out[:0]
	if cap(out) < size { // a writer Bytes gave its buffer to allocates
		out = make([]byte, 0, size)
	}
	out = append(append(out, chunkMagic...), chunkVersion)
	out = binary.AppendUvarint(out, uint64(len(w.table)))
	for _, s := range w.table {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	out = append(out, shared...)
	out = binary.AppendUvarint(out, uint64(len(w.ends)))
	start := 0
	for _, end := range w.ends {
		out = binary.AppendUvarint(out, uint64(end-start))
		start = end
	}
	out = append(out, w.records...)
	w.out = out
	return out
}

func (w *EvidenceWriter) uint(v uint64) { w.buf = binary.AppendUvarint(w.buf, v) }
func (w *EvidenceWriter) int(v int64)   { w.buf = binary.AppendVarint(w.buf, v) }

func (w *EvidenceWriter) bool(b bool) {
	if b {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

// sameStr is a table string and its index.
type sameStr struct {
	s string
	i uint64
}

func (w *EvidenceWriter) index(s string) uint64 {
	if len(s) == 0 {
		if w.empty == 0 {
			w.empty = w.indexOf("") + 1
		}
		return w.empty - 1
	}
	p := unsafe.StringData(s)
	slot := &w.same[(uint64(uintptr(unsafe.Pointer(p)))*0x9e3779b97f4a7c15)>>56]
	if len(slot.s) == len(s) && unsafe.StringData(slot.s) == p {
		return slot.i
	}
	i := w.indexOf(s)
	if t := w.table[i]; unsafe.StringData(t) == p {
		slot.s, slot.i = t, i // s is the table's string: it may come again
	}
	return i
}

// indexOf is s's index in the string table, added if new.
func (w *EvidenceWriter) indexOf(s string) uint64 {
	w.hashed++
	i, ok := w.strs[s]
	if !ok {
		i = uint64(len(w.table))
		w.strs[s] = i
		w.table = append(w.table, s)
	}
	return i
}

func (w *EvidenceWriter) str(s string) { w.uint(w.index(s)) }

func (w *EvidenceWriter) optStr(s *string) {
	if s == nil {
		w.uint(0)
		return
	}
	w.uint(w.index(*s) + 1)
}

func (w *EvidenceWriter) optInt(v *int64) {
	w.bool(v != nil)
	if v != nil {
		w.int(*v)
	}
}

func (w *EvidenceWriter) strList(list []string) {
	w.uint(uint64(len(list)))
	for _, s := range list {
		w.str(s)
	}
}

func (w *EvidenceWriter) lineRef(r model.LineRef) {
	w.str(r.Path)
	w.int(r.Line)
}

func (w *EvidenceWriter) spanRef(r model.SpanRef) {
	w.str(r.Path)
	w.int(r.Line)
	w.int(int64(r.Ordinal))
}

func (w *EvidenceWriter) client(c model.ClientTiming) {
	w.str(c.ID)
	w.int(c.StartNS)
	w.int(c.EndNS - c.StartNS)
	w.optInt(c.FirstNS)
	w.lineRef(c.Evidence)
}

func (w *EvidenceWriter) span(sp *model.JoinedSpan, prevStart int64) {
	s := sp.Span
	w.str(s.TraceID)
	w.str(s.SpanID)
	w.str(s.ParentSpanID)
	w.str(s.TraceState)
	w.str(s.Name)
	w.int(int64(s.Kind))
	w.int(s.StartNS - prevStart)
	w.int(s.EndNS - s.StartNS)
	w.int(int64(s.Status.Code))
	w.str(s.Status.Message)
	w.attrs(s.Attrs, 0)
	w.uint(w.resources.id(s.Resource))
	w.uint(w.scopes.id(s.Scope))
	w.spanRef(s.Ref)
	w.str(sp.Join)
	w.str(sp.Worker)
	w.str(sp.WorkerBasis)
	w.bool(sp.Routing != nil)
	if rc := sp.Routing; rc != nil {
		w.str(rc.Phase)
		w.str(rc.RouteSpanID)
		w.spanRef(rc.RouteRef)
		w.str(rc.Basis)
	}
}

// shared numbers the resources (or scopes) spans point to, 1.. in order of
// first use; a nil pointer is 0. Spans of one resourceSpans group share
// the pointer, so each group is written once per chunk.
type shared[T any] struct {
	ids  map[*T]uint64
	list []*T
}

func (s *shared[T]) reset() {
	clear(s.ids)
	clear(s.list)
	s.list = s.list[:0]
}

func (s *shared[T]) id(p *T) uint64 {
	if p == nil {
		return 0
	}
	i, ok := s.ids[p]
	if !ok {
		if s.ids == nil {
			s.ids = map[*T]uint64{}
		}
		s.list = append(s.list, p)
		i = uint64(len(s.list))
		s.ids[p] = i
	}
	return i
}

func (w *EvidenceWriter) attrs(a model.Attributes, depth int) {
	w.uint(uint64(len(a)))
	for _, kv := range a {
		w.str(kv.Key)
		w.value(kv.Value, depth)
	}
}

func (w *EvidenceWriter) value(v model.Value, depth int) {
	w.buf = append(w.buf, byte(v.Kind()))
	switch v.Kind() {
	case model.KindString:
		s, _ := v.Str()
		w.str(s)
	case model.KindBytes:
		b, _ := v.Bytes()
		w.str(string(b))
	case model.KindInt:
		n, _ := v.Int()
		w.int(n)
	case model.KindDouble:
		d, _ := v.Double()
		w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(d))
	case model.KindBool:
		b, _ := v.Bool()
		w.bool(b)
	case model.KindArray:
		items, _ := v.Array()
		w.uint(uint64(len(items)))
		for _, it := range items {
			w.value(it, depth+1)
		}
	case model.KindKVList:
		kvs, _ := v.KVList()
		w.attrs(kvs, depth+1)
	}
}
