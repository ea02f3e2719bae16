// Package perfetto owns the Perfetto trace file format (.pftrace) as dsight
// writes and checks it: a Trace message of TracePackets carrying track
// descriptors, track events (slice begin/end, counters) with interned names
// and debug annotations, and flows. It is a small hand-rolled encoder over
// protowire, so the page's engine links no protobuf reflection; the field
// numbers are Perfetto's (protos/perfetto/trace/, see
// /work/shared/spec/peers.md §5). It knows nothing of dsight's evidence:
// internal/query decides what the tracks and slices are.
package perfetto

import (
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of the messages written (perfetto_trace.proto).
const (
	fTracePacket = 1 // Trace.packet

	fPktTimestamp       = 8
	fPktSequenceID      = 10 // trusted_packet_sequence_id
	fPktTrackEvent      = 11
	fPktInternedData    = 12
	fPktSequenceFlags   = 13
	fPktTrackDescriptor = 60
	fPktFirstOnSequence = 87

	fTrackUUID          = 1
	fTrackName          = 2
	fTrackProcess       = 3
	fTrackThread        = 4
	fTrackParent        = 5
	fTrackCounter       = 8
	fTrackChildOrdering = 11
	fTrackSiblingRank   = 12
	fTrackDescription   = 14

	fProcessPID  = 1
	fProcessName = 6

	fThreadPID  = 1
	fThreadTID  = 2
	fThreadName = 5

	fCounterUnitName = 6

	fEventDebugAnnotation = 4
	fEventType            = 9
	fEventNameIID         = 10
	fEventTrackUUID       = 11
	fEventCounterValue    = 30
	fEventDoubleCounter   = 44
	fEventFlowIDs         = 47
	fEventTerminatingFlow = 48

	fAnnotationNameIID = 1
	fAnnotationInt     = 4
	fAnnotationDouble  = 5
	fAnnotationString  = 6

	fInternedEventNames      = 2
	fInternedAnnotationNames = 3
	fInternedIID             = 1
	fInternedName            = 2
)

// TrackEvent types.
const (
	typeSliceBegin = 1
	typeSliceEnd   = 2
	typeCounter    = 4
)

// Sequence flags (TracePacket.SequenceFlags).
const (
	SeqIncrementalStateCleared = 1
	SeqNeedsIncrementalState   = 2
)

// ChildOrdering says how the UI orders a track's children.
type ChildOrdering int

// The orderings Perfetto knows; Unset leaves the UI's default.
const (
	Unset         ChildOrdering = 0
	Lexicographic ChildOrdering = 1
	Chronological ChildOrdering = 2
	Explicit      ChildOrdering = 3
)

// Track is one TrackDescriptor. UUID must be unique and non-zero. At most
// one of Process, Thread and Counter is set.
type Track struct {
	UUID, Parent uint64
	Name         string
	Description  string
	Process      *Process
	Thread       *Thread
	Counter      *Counter
	Ordering     ChildOrdering
	// Rank orders the track among its siblings when the parent's ordering
	// is Explicit.
	Rank *int32
}

// Process names a process track.
type Process struct {
	PID  int32
	Name string
}

// Thread names a thread track of process PID.
type Thread struct {
	PID, TID int32
	Name     string
}

// Counter makes a track a counter track; UnitName is free text ("tok/s").
type Counter struct {
	UnitName string
}

// Arg is one debug annotation of a slice.
type Arg struct {
	Name string
	kind byte // 'i', 'f', 's'
	i    int64
	f    float64
	s    string
	b    []byte
}

// Bytes is Str for text in a buffer the caller reuses: the writer copies
// it before returning.
func Bytes(name string, v []byte) Arg { return Arg{Name: name, kind: 'b', b: v} }

// Int, Float and Str make debug annotations.
func Int(name string, v int64) Arg     { return Arg{Name: name, kind: 'i', i: v} }
func Float(name string, v float64) Arg { return Arg{Name: name, kind: 'f', f: v} }
func Str(name, v string) Arg           { return Arg{Name: name, kind: 's', s: v} }

// Writer appends one packet sequence to a byte slice. Every event packet
// carries the sequence id; the first packet clears the incremental state
// and later event packets say they need it, because names and annotation
// names are interned (each defined in the packet that first uses it).
// Writer refuses an event on a track it has not described.
type Writer struct {
	out     []byte
	sink    io.Writer // when set, out is flushed to it in blocks
	pkt     []byte    // the packet being built
	ev      []byte    // its track event
	scratch []byte
	seq     uint32
	started bool

	names, argNames       map[string]uint64
	newNames, newArgNames []string
	tracks                []bool // by uuid: described
	err                   error
}

// NewWriter starts a sequence with id seq (non-zero), appending to dst.
func NewWriter(dst []byte, seq uint32) *Writer {
	return &Writer{out: dst, seq: seq, names: map[string]uint64{}, argNames: map[string]uint64{}}
}

// NewStreamWriter starts a sequence with id seq that writes to sink in
// blocks; call Flush at the end.
func NewStreamWriter(sink io.Writer, seq uint32) *Writer {
	w := NewWriter(make([]byte, 0, flushBytes+64<<10), seq)
	w.sink = sink
	return w
}

// flushBytes is the block a stream writer hands its sink.
const flushBytes = 1 << 20

// Bytes returns the trace written so far and the first error, if any.
func (w *Writer) Bytes() ([]byte, error) { return w.out, w.err }

// Flush writes what is buffered to the sink and returns the first error.
func (w *Writer) Flush() error {
	if w.sink != nil && w.err == nil && len(w.out) > 0 {
		if _, err := w.sink.Write(w.out); err != nil {
			w.err = err
		}
		w.out = w.out[:0]
	}
	return w.err
}

func (w *Writer) described(uuid uint64) bool {
	return uuid < uint64(len(w.tracks)) && w.tracks[uuid]
}

func (w *Writer) fail(format string, a ...any) {
	if w.err == nil {
		w.err = fmt.Errorf(format, a...)
	}
}

// Describe writes a track descriptor. A track must be described once,
// before any event on it, and its parent before it.
func (w *Writer) Describe(t Track) {
	switch {
	case t.UUID == 0:
		w.fail("perfetto: track %q has uuid 0", t.Name)
		return
	case w.described(t.UUID):
		w.fail("perfetto: track %d described twice", t.UUID)
		return
	case t.Parent != 0 && !w.described(t.Parent):
		w.fail("perfetto: track %d described before its parent %d", t.UUID, t.Parent)
		return
	case t.UUID > 1<<32:
		// uuids index a table here; a writer needs no more tracks
		w.fail("perfetto: track uuid %d is too large for this writer", t.UUID)
		return
	}
	for uint64(len(w.tracks)) <= t.UUID {
		w.tracks = append(w.tracks, false)
	}
	w.tracks[t.UUID] = true
	b := w.scratch[:0]
	b = protowire.AppendTag(b, fTrackUUID, protowire.VarintType)
	b = protowire.AppendVarint(b, t.UUID)
	if t.Name != "" {
		b = appendString(b, fTrackName, t.Name)
	}
	if p := t.Process; p != nil {
		var m []byte
		m = appendVarintField(m, fProcessPID, uint64(p.PID))
		m = appendString(m, fProcessName, p.Name)
		b = appendBytes(b, fTrackProcess, m)
	}
	if th := t.Thread; th != nil {
		var m []byte
		m = appendVarintField(m, fThreadPID, uint64(th.PID))
		m = appendVarintField(m, fThreadTID, uint64(th.TID))
		m = appendString(m, fThreadName, th.Name)
		b = appendBytes(b, fTrackThread, m)
	}
	if t.Parent != 0 {
		b = appendVarintField(b, fTrackParent, t.Parent)
	}
	if c := t.Counter; c != nil {
		var m []byte
		if c.UnitName != "" {
			m = appendString(m, fCounterUnitName, c.UnitName)
		}
		b = appendBytes(b, fTrackCounter, m)
	}
	if t.Ordering != Unset {
		b = appendVarintField(b, fTrackChildOrdering, uint64(t.Ordering))
	}
	if t.Rank != nil {
		b = appendVarintField(b, fTrackSiblingRank, uint64(int64(*t.Rank)))
	}
	if t.Description != "" {
		b = appendString(b, fTrackDescription, t.Description)
	}
	w.scratch = b
	w.pkt = appendBytes(w.pkt[:0], fPktTrackDescriptor, b)
	w.finish(false)
}

// Begin opens a slice named name on track at ts (ns). flows start arrows
// that end at the slices naming the same ids in terminating.
func (w *Writer) Begin(ts int64, track uint64, name string, args []Arg, flows, terminating []uint64) {
	if !w.known(track) {
		return
	}
	e := w.ev[:0]
	e = appendVarintField(e, fEventType, typeSliceBegin)
	e = appendVarintField(e, fEventTrackUUID, track)
	e = appendVarintField(e, fEventNameIID, w.intern(w.names, &w.newNames, name))
	for _, a := range args {
		m := w.scratch[:0]
		m = appendVarintField(m, fAnnotationNameIID, w.intern(w.argNames, &w.newArgNames, a.Name))
		switch a.kind {
		case 'i':
			m = appendVarintField(m, fAnnotationInt, uint64(a.i))
		case 'f':
			m = protowire.AppendTag(m, fAnnotationDouble, protowire.Fixed64Type)
			m = protowire.AppendFixed64(m, math.Float64bits(a.f))
		case 'b':
			m = protowire.AppendTag(m, fAnnotationString, protowire.BytesType)
			m = protowire.AppendBytes(m, a.b)
		default:
			m = appendString(m, fAnnotationString, a.s)
		}
		w.scratch = m
		e = appendBytes(e, fEventDebugAnnotation, m)
	}
	for _, id := range flows {
		e = protowire.AppendTag(e, fEventFlowIDs, protowire.Fixed64Type)
		e = protowire.AppendFixed64(e, id)
	}
	for _, id := range terminating {
		e = protowire.AppendTag(e, fEventTerminatingFlow, protowire.Fixed64Type)
		e = protowire.AppendFixed64(e, id)
	}
	w.event(ts, e)
}

// End closes the innermost open slice of track at ts.
func (w *Writer) End(ts int64, track uint64) {
	if !w.known(track) {
		return
	}
	e := w.ev[:0]
	e = appendVarintField(e, fEventType, typeSliceEnd)
	e = appendVarintField(e, fEventTrackUUID, track)
	w.event(ts, e)
}

// Counter records value v on counter track at ts: an integral value as
// counter_value (a varint: most gauges count something), any other as
// double_counter_value. Trace Processor reads both as the same double.
func (w *Writer) Counter(ts int64, track uint64, v float64) { w.counter(ts, track, v, true) }

// DoubleCounter records v as double_counter_value whatever its value.
func (w *Writer) DoubleCounter(ts int64, track uint64, v float64) { w.counter(ts, track, v, false) }

func (w *Writer) counter(ts int64, track uint64, v float64, compact bool) {
	if !w.known(track) {
		return
	}
	e := w.ev[:0]
	e = appendVarintField(e, fEventType, typeCounter)
	e = appendVarintField(e, fEventTrackUUID, track)
	if i := int64(v); compact && float64(i) == v && math.Abs(v) < 1<<53 && !(v == 0 && math.Signbit(v)) {
		// An integral value is exact as counter_value, in fewer bytes.
		e = appendVarintField(e, fEventCounterValue, uint64(i))
	} else {
		e = protowire.AppendTag(e, fEventDoubleCounter, protowire.Fixed64Type)
		e = protowire.AppendFixed64(e, math.Float64bits(v))
	}
	w.event(ts, e)
}

func (w *Writer) known(track uint64) bool {
	if !w.described(track) {
		w.fail("perfetto: event on track %d before its descriptor", track)
		return false
	}
	return true
}

// event wraps a track event in a packet: timestamp, the event, then the
// interned entries it introduced.
func (w *Writer) event(ts int64, e []byte) {
	w.ev = e
	p := w.pkt[:0]
	p = appendVarintField(p, fPktTimestamp, uint64(ts))
	p = appendBytes(p, fPktTrackEvent, e)
	if len(w.newNames) > 0 || len(w.newArgNames) > 0 {
		var m []byte
		for _, n := range w.newNames {
			m = appendBytes(m, fInternedEventNames, internedEntry(w.names[n], n))
		}
		for _, n := range w.newArgNames {
			m = appendBytes(m, fInternedAnnotationNames, internedEntry(w.argNames[n], n))
		}
		p = appendBytes(p, fPktInternedData, m)
		w.newNames, w.newArgNames = w.newNames[:0], w.newArgNames[:0]
	}
	w.pkt = p
	w.finish(true)
}

// finish appends the sequence fields and the packet to the trace. The
// first packet of the sequence clears the incremental state; every event
// packet after it says it needs that state (its names are interned).
func (w *Writer) finish(isEvent bool) {
	p := appendVarintField(w.pkt, fPktSequenceID, uint64(w.seq))
	switch {
	case !w.started:
		p = appendVarintField(p, fPktSequenceFlags, SeqIncrementalStateCleared|SeqNeedsIncrementalState)
		p = appendVarintField(p, fPktFirstOnSequence, 1)
		w.started = true
	case isEvent:
		p = appendVarintField(p, fPktSequenceFlags, SeqNeedsIncrementalState)
	}
	w.pkt = p
	w.out = appendBytes(w.out, fTracePacket, p)
	if w.sink != nil && len(w.out) >= flushBytes {
		w.Flush()
	}
}

func (w *Writer) intern(table map[string]uint64, fresh *[]string, s string) uint64 {
	if iid, ok := table[s]; ok {
		return iid
	}
	iid := uint64(len(table) + 1) // iid 0 is invalid
	table[s] = iid
	*fresh = append(*fresh, s)
	return iid
}

func internedEntry(iid uint64, name string) []byte {
	m := appendVarintField(nil, fInternedIID, iid)
	return appendString(m, fInternedName, name)
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}
