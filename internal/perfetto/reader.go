package perfetto

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Decode reads back a trace as Writer writes it, with the protowire
// reader, and checks the rules Trace Processor relies on: every packet a
// TracePacket on one sequence, the first clearing the incremental state and
// every event packet needing it; interned ids defined before use, non-zero
// and never redefined; each track described once, its parent first, before
// any event on it; slices only on slice tracks, ending in order (strict
// nesting), all closed; counters only on counter tracks; timestamps never
// decreasing along the sequence; every flow with a start and an end.
// The tests and `dsight export perfetto --check` use it; it refuses what
// it does not know, so it is no general Perfetto reader.
func Decode(data []byte) (*Trace, error) {
	d := decoder{t: &Trace{}, tracks: map[uint64]int{}, names: map[uint64]string{}, argNames: map[uint64]string{}, open: map[uint64][]int{}}
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return nil, d.errf("trace: %v", protowire.ParseError(n))
		}
		if num != fTracePacket || typ != protowire.BytesType {
			return nil, d.errf("trace: field %d (wire type %d) is not a packet", num, typ)
		}
		data = data[n:]
		pkt, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return nil, d.errf("trace: packet: %v", protowire.ParseError(n))
		}
		data = data[n:]
		if err := d.packet(pkt); err != nil {
			return nil, err
		}
		d.t.Packets++
	}
	for uuid, stack := range d.open {
		if len(stack) > 0 {
			return nil, fmt.Errorf("track %d: %d slice(s) never ended", uuid, len(stack))
		}
	}
	starts, ends := map[uint64]int{}, map[uint64]int{}
	for _, e := range d.t.Events {
		for _, f := range e.Flows {
			starts[f]++
		}
		for _, f := range e.Terminating {
			ends[f]++
		}
	}
	for f, n := range starts {
		if ends[f] != n {
			return nil, fmt.Errorf("flow %d starts %d time(s) and ends %d", f, n, ends[f])
		}
	}
	for f := range ends {
		if starts[f] == 0 {
			return nil, fmt.Errorf("flow %d ends but never starts", f)
		}
	}
	d.t.Flows = len(starts)
	return d.t, nil
}

// Trace is a decoded trace: its tracks in descriptor order and its events
// in file order.
type Trace struct {
	Packets int
	Tracks  []Track
	Events  []Event
	Flows   int
	// Interned counts the interned event and annotation names.
	Interned int
}

// Event is one decoded track event. Depth is the slice's nesting depth on
// its track (0 for a top-level slice).
type Event struct {
	TS                 int64
	Track              uint64
	Type               int // 1 begin, 2 end, 4 counter
	Name               string
	Depth              int
	Value              float64
	Args               map[string]any // int64, float64 or string
	Flows, Terminating []uint64
}

// Begin, End and CounterEvent are the event types.
const (
	Begin        = typeSliceBegin
	End          = typeSliceEnd
	CounterEvent = typeCounter
)

type decoder struct {
	t        *Trace
	tracks   map[uint64]int // uuid → index in t.Tracks
	names    map[uint64]string
	argNames map[uint64]string
	open     map[uint64][]int // track → indexes of its open begin events
	seq      uint32
	cleared  bool
	lastTS   int64
}

func (d *decoder) errf(format string, a ...any) error {
	return fmt.Errorf("packet %d: %s", d.t.Packets, fmt.Sprintf(format, a...))
}

type fields map[protowire.Number][]any // uint64 for varint and fixed64, []byte for LEN

func parseFields(b []byte) (fields, error) {
	out := fields{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			out[num] = append(out[num], v)
			b = b[n:]
		case protowire.Fixed64Type:
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			out[num] = append(out[num], v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			out[num] = append(out[num], v)
			b = b[n:]
		default:
			return nil, fmt.Errorf("field %d has wire type %d, which this writer never uses", num, typ)
		}
	}
	return out, nil
}

func (f fields) uint(num protowire.Number) (uint64, bool) {
	v := f[num]
	if len(v) != 1 {
		return 0, false
	}
	u, ok := v[0].(uint64)
	return u, ok
}

func (f fields) bytes(num protowire.Number) ([]byte, bool) {
	v := f[num]
	if len(v) != 1 {
		return nil, false
	}
	b, ok := v[0].([]byte)
	return b, ok
}

func (f fields) str(num protowire.Number) string {
	b, _ := f.bytes(num)
	return string(b)
}

func (d *decoder) packet(pkt []byte) error {
	f, err := parseFields(pkt)
	if err != nil {
		return d.errf("%v", err)
	}
	seq, ok := f.uint(fPktSequenceID)
	if !ok || seq == 0 {
		return d.errf("no trusted_packet_sequence_id")
	}
	if d.seq != 0 && uint32(seq) != d.seq {
		return d.errf("sequence %d after sequence %d: this writer writes one", seq, d.seq)
	}
	d.seq = uint32(seq)
	flags, _ := f.uint(fPktSequenceFlags)
	if !d.cleared {
		if flags&SeqIncrementalStateCleared == 0 {
			return d.errf("the first packet does not clear the incremental state (flags %d)", flags)
		}
		if first, _ := f.uint(fPktFirstOnSequence); first != 1 {
			return d.errf("the first packet does not say first_packet_on_sequence")
		}
		d.cleared = true
	} else if flags&SeqIncrementalStateCleared != 0 {
		return d.errf("the incremental state is cleared again")
	}
	if b, ok := f.bytes(fPktInternedData); ok {
		if err := d.interned(b); err != nil {
			return d.errf("interned data: %v", err)
		}
	}
	if b, ok := f.bytes(fPktTrackDescriptor); ok {
		return d.descriptor(b)
	}
	b, ok := f.bytes(fPktTrackEvent)
	if !ok {
		return d.errf("neither a track descriptor nor a track event")
	}
	if flags&SeqNeedsIncrementalState == 0 {
		return d.errf("an event packet without SEQ_NEEDS_INCREMENTAL_STATE")
	}
	ts, ok := f.uint(fPktTimestamp)
	if !ok {
		return d.errf("an event without a timestamp")
	}
	if int64(ts) < d.lastTS {
		return d.errf("timestamp %d after %d", ts, d.lastTS)
	}
	d.lastTS = int64(ts)
	return d.event(int64(ts), b)
}

func (d *decoder) interned(b []byte) error {
	f, err := parseFields(b)
	if err != nil {
		return err
	}
	for num, table := range map[protowire.Number]map[uint64]string{fInternedEventNames: d.names, fInternedAnnotationNames: d.argNames} {
		for _, v := range f[num] {
			entry, ok := v.([]byte)
			if !ok {
				return errors.New("an entry is not a message")
			}
			ef, err := parseFields(entry)
			if err != nil {
				return err
			}
			iid, ok := ef.uint(fInternedIID)
			if !ok || iid == 0 {
				return errors.New("an entry without a non-zero iid")
			}
			if _, dup := table[iid]; dup {
				return fmt.Errorf("iid %d defined twice", iid)
			}
			table[iid] = ef.str(fInternedName)
			d.t.Interned++
		}
	}
	return nil
}

func (d *decoder) descriptor(b []byte) error {
	f, err := parseFields(b)
	if err != nil {
		return d.errf("track descriptor: %v", err)
	}
	uuid, ok := f.uint(fTrackUUID)
	if !ok || uuid == 0 {
		return d.errf("a track descriptor without a non-zero uuid")
	}
	if _, dup := d.tracks[uuid]; dup {
		return d.errf("track %d described twice", uuid)
	}
	t := Track{UUID: uuid, Name: f.str(fTrackName), Description: f.str(fTrackDescription)}
	if p, ok := f.uint(fTrackParent); ok {
		if _, known := d.tracks[p]; !known {
			return d.errf("track %d names parent %d before its descriptor", uuid, p)
		}
		t.Parent = p
	}
	if pb, ok := f.bytes(fTrackProcess); ok {
		pf, err := parseFields(pb)
		if err != nil {
			return d.errf("process: %v", err)
		}
		pid, _ := pf.uint(fProcessPID)
		t.Process = &Process{PID: int32(pid), Name: pf.str(fProcessName)}
	}
	if tb, ok := f.bytes(fTrackThread); ok {
		tf, err := parseFields(tb)
		if err != nil {
			return d.errf("thread: %v", err)
		}
		pid, _ := tf.uint(fThreadPID)
		tid, _ := tf.uint(fThreadTID)
		t.Thread = &Thread{PID: int32(pid), TID: int32(tid), Name: tf.str(fThreadName)}
	}
	if cb, ok := f.bytes(fTrackCounter); ok {
		cf, err := parseFields(cb)
		if err != nil {
			return d.errf("counter: %v", err)
		}
		t.Counter = &Counter{UnitName: cf.str(fCounterUnitName)}
	}
	if o, ok := f.uint(fTrackChildOrdering); ok {
		t.Ordering = ChildOrdering(o)
	}
	d.tracks[uuid] = len(d.t.Tracks)
	d.t.Tracks = append(d.t.Tracks, t)
	return nil
}

func (d *decoder) event(ts int64, b []byte) error {
	f, err := parseFields(b)
	if err != nil {
		return d.errf("track event: %v", err)
	}
	typ, _ := f.uint(fEventType)
	uuid, ok := f.uint(fEventTrackUUID)
	if !ok {
		return d.errf("an event without a track_uuid")
	}
	k, known := d.tracks[uuid]
	if !known {
		return d.errf("an event on track %d before its descriptor", uuid)
	}
	isCounter := d.t.Tracks[k].Counter != nil
	e := Event{TS: ts, Track: uuid, Type: int(typ)}
	switch typ {
	case typeSliceBegin:
		if isCounter {
			return d.errf("a slice on counter track %d", uuid)
		}
		iid, ok := f.uint(fEventNameIID)
		name, defined := d.names[iid]
		if !ok || !defined {
			return d.errf("a slice whose name iid %d is not interned", iid)
		}
		e.Name, e.Depth = name, len(d.open[uuid])
		for _, v := range f[fEventDebugAnnotation] {
			ab, _ := v.([]byte)
			if err := d.annotation(&e, ab); err != nil {
				return d.errf("annotation: %v", err)
			}
		}
		for _, v := range f[fEventFlowIDs] {
			e.Flows = append(e.Flows, v.(uint64))
		}
		for _, v := range f[fEventTerminatingFlow] {
			e.Terminating = append(e.Terminating, v.(uint64))
		}
		d.open[uuid] = append(d.open[uuid], len(d.t.Events))
	case typeSliceEnd:
		stack := d.open[uuid]
		if len(stack) == 0 {
			return d.errf("a slice end on track %d with no open slice", uuid)
		}
		begin := d.t.Events[stack[len(stack)-1]]
		e.Name, e.Depth = begin.Name, len(stack)-1
		d.open[uuid] = stack[:len(stack)-1]
	case typeCounter:
		if !isCounter {
			return d.errf("a counter value on slice track %d", uuid)
		}
		if v, ok := f.uint(fEventDoubleCounter); ok {
			e.Value = math.Float64frombits(v)
		} else if v, ok := f.uint(fEventCounterValue); ok {
			e.Value = float64(int64(v))
		} else {
			return d.errf("a counter event without a value")
		}
	default:
		return d.errf("event type %d", typ)
	}
	d.t.Events = append(d.t.Events, e)
	return nil
}

func (d *decoder) annotation(e *Event, b []byte) error {
	f, err := parseFields(b)
	if err != nil {
		return err
	}
	iid, _ := f.uint(fAnnotationNameIID)
	name, ok := d.argNames[iid]
	if !ok {
		return fmt.Errorf("name iid %d is not interned", iid)
	}
	if e.Args == nil {
		e.Args = map[string]any{}
	}
	switch {
	case len(f[fAnnotationInt]) == 1:
		u, _ := f.uint(fAnnotationInt)
		e.Args[name] = int64(u)
	case len(f[fAnnotationDouble]) == 1:
		u, _ := f.uint(fAnnotationDouble)
		e.Args[name] = math.Float64frombits(u)
	case len(f[fAnnotationString]) == 1:
		e.Args[name] = f.str(fAnnotationString)
	default:
		return fmt.Errorf("%s has no value this writer writes", name)
	}
	return nil
}

// Summary counts what a trace holds, for golden files: tracks by kind,
// slices and counter values, flows, and the slices per name.
type Summary struct {
	Packets       int            `json:"packets"`
	Tracks        int            `json:"tracks"`
	ProcessTracks int            `json:"process_tracks"`
	ThreadTracks  int            `json:"thread_tracks"`
	CounterTracks int            `json:"counter_tracks"`
	Slices        int            `json:"slices"`
	MaxDepth      int            `json:"max_depth"`
	Counters      int            `json:"counter_values"`
	Flows         int            `json:"flows"`
	Interned      int            `json:"interned_names"`
	SliceNames    map[string]int `json:"slices_by_name"`
	// TopTracks names the tracks without a parent, in descriptor order.
	TopTracks []string `json:"top_tracks"`
}

// Summarize counts t.
func (t *Trace) Summarize() Summary {
	s := Summary{Packets: t.Packets, Tracks: len(t.Tracks), Flows: t.Flows, Interned: t.Interned, SliceNames: map[string]int{}, TopTracks: []string{}}
	for _, tr := range t.Tracks {
		switch {
		case tr.Process != nil:
			s.ProcessTracks++
		case tr.Thread != nil:
			s.ThreadTracks++
		case tr.Counter != nil:
			s.CounterTracks++
		}
		if tr.Parent == 0 {
			name := tr.Name
			if tr.Process != nil {
				name = tr.Process.Name
			} else if tr.Thread != nil {
				name = tr.Thread.Name
			}
			s.TopTracks = append(s.TopTracks, name)
		}
	}
	for _, e := range t.Events {
		switch e.Type {
		case typeSliceBegin:
			s.Slices++
			s.SliceNames[e.Name]++
			s.MaxDepth = max(s.MaxDepth, e.Depth)
		case typeCounter:
			s.Counters++
		}
	}
	return s
}
