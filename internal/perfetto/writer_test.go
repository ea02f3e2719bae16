package perfetto

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// The counter packet of peers.md §5d, byte by byte: 2.0 at 1,500,000 ns on
// track 101 of sequence 7, after the sequence's first packet.
func TestCounterPacketBytes(t *testing.T) {
	w := NewWriter(nil, 7)
	w.Describe(Track{UUID: 101, Name: "c", Counter: &Counter{}})
	before, _ := w.Bytes()
	n := len(before)
	w.DoubleCounter(1_500_000, 101, 2.0)
	out, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := "0a18" + "40e0c65b" + "5a0e" + "4804" + "5865" + "e1020000000000000040" + "5007" + "6802"
	if got := hex.EncodeToString(out[n:]); got != want {
		t.Fatalf("counter packet\n got %s\nwant %s", got, want)
	}
	// Counter writes the integral 2 as counter_value (30, varint): 7 bytes
	// less. Fractions, NaN-free non-integers and -0 stay doubles.
	n = len(out)
	w.Counter(1_500_000, 101, 2.0)
	out, _ = w.Bytes()
	want = "0a11" + "40e0c65b" + "5a07" + "4804" + "5865" + "f00102" + "5007" + "6802"
	if got := hex.EncodeToString(out[n:]); got != want {
		t.Fatalf("compact counter packet\n got %s\nwant %s", got, want)
	}
	for _, v := range []float64{0.5, math.Copysign(0, -1), 1 << 60} {
		w.Counter(1_500_000, 101, v)
	}
	out, _ = w.Bytes()
	tr, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, e := range tr.Events {
		got = append(got, e.Value)
	}
	if fmt.Sprint(got) != fmt.Sprint([]float64{2, 2, 0.5, math.Copysign(0, -1), 1 << 60}) || !math.Signbit(got[3]) {
		t.Fatalf("values read back %v", got)
	}
}

// A stream writer hands its sink exactly the bytes a buffer writer holds.
func TestStreamWriter(t *testing.T) {
	var sink bytes.Buffer
	a, b := NewWriter(nil, 3), NewStreamWriter(&sink, 3)
	for _, w := range []*Writer{a, b} {
		w.Describe(Track{UUID: 1, Name: "t"})
		for k := range int64(200_000) {
			w.Begin(k*10, 1, "s", []Arg{Int("k", k)}, nil, nil)
			w.End(k*10+5, 1)
		}
	}
	want, _ := a.Bytes()
	if err := b.Flush(); err != nil || !bytes.Equal(sink.Bytes(), want) || len(want) < 2*flushBytes {
		t.Fatalf("stream %d bytes, buffer %d (%v)", sink.Len(), len(want), err)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	w := NewWriter(nil, 1)
	w.Describe(Track{UUID: 1, Process: &Process{PID: 1, Name: "client"}, Ordering: Chronological})
	w.Describe(Track{UUID: 2, Parent: 1, Name: "lane 0"})
	w.Describe(Track{UUID: 3, Parent: 1, Name: "worker"})
	w.Describe(Track{UUID: 4, Name: "in flight", Counter: &Counter{UnitName: "requests"}, Description: "d"})
	w.Begin(10, 2, "request", []Arg{Str("request_id", "r1"), Int("output_tokens", 7), Float("ttft_ms", 1.5)}, []uint64{9}, nil)
	w.Counter(10, 4, 1)
	w.Begin(11, 2, "stage", nil, nil, nil)
	w.Begin(12, 3, "served", nil, nil, []uint64{9})
	w.End(13, 2)
	w.End(14, 3)
	w.Begin(15, 2, "stage", nil, nil, nil)
	w.End(15, 2)
	w.End(20, 2)
	w.Counter(20, 4, 0)
	out, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Summarize()
	if s.Tracks != 4 || s.ProcessTracks != 1 || s.CounterTracks != 1 || s.Slices != 4 || s.Counters != 2 || s.Flows != 1 || s.MaxDepth != 1 || s.Interned != 6 {
		t.Fatalf("summary %+v", s)
	}
	first := tr.Events[0]
	if first.Name != "request" || first.Args["request_id"] != "r1" || first.Args["output_tokens"] != int64(7) || first.Args["ttft_ms"] != 1.5 || first.Flows[0] != 9 {
		t.Fatalf("first event %+v", first)
	}
	if tr.Tracks[3].Counter.UnitName != "requests" || tr.Tracks[3].Description != "d" || tr.Tracks[0].Ordering != Chronological {
		t.Fatalf("tracks %+v", tr.Tracks)
	}
	// "stage" is interned once and used twice.
	if n := bytes.Count(out, []byte("stage")); n != 1 {
		t.Fatalf("the name stage is written %d times; interned, once", n)
	}
}

func TestWriterRefuses(t *testing.T) {
	for name, write := range map[string]func(w *Writer){
		"event before descriptor": func(w *Writer) { w.Counter(1, 5, 1) },
		"parent after child":      func(w *Writer) { w.Describe(Track{UUID: 2, Parent: 1}) },
		"twice":                   func(w *Writer) { w.Describe(Track{UUID: 1}); w.Describe(Track{UUID: 1}) },
		"uuid 0":                  func(w *Writer) { w.Describe(Track{Name: "x"}) },
	} {
		w := NewWriter(nil, 1)
		write(w)
		if _, err := w.Bytes(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Decode refuses what breaks Trace Processor's rules, each named.
func TestDecodeRefuses(t *testing.T) {
	good := func() *Writer {
		w := NewWriter(nil, 1)
		w.Describe(Track{UUID: 1, Name: "t"})
		w.Describe(Track{UUID: 2, Name: "c", Counter: &Counter{}})
		return w
	}
	cases := map[string]struct {
		build func() []byte
		want  string
	}{
		"unclosed":          {func() []byte { w := good(); w.Begin(1, 1, "a", nil, nil, nil); b, _ := w.Bytes(); return b }, "never ended"},
		"end without begin": {func() []byte { w := good(); w.End(1, 1); b, _ := w.Bytes(); return b }, "no open slice"},
		"time goes back": {func() []byte {
			w := good()
			w.Counter(5, 2, 1)
			w.Counter(4, 2, 1)
			b, _ := w.Bytes()
			return b
		}, "timestamp 4 after 5"},
		"slice on counter": {func() []byte {
			w := good()
			w.Begin(1, 2, "a", nil, nil, nil)
			w.End(2, 2)
			b, _ := w.Bytes()
			return b
		}, "counter track"},
		"flow without end": {func() []byte {
			w := good()
			w.Begin(1, 1, "a", nil, []uint64{3}, nil)
			w.End(2, 1)
			b, _ := w.Bytes()
			return b
		}, "flow 3"},
		"no first packet": {func() []byte {
			w := good()
			w.Counter(1, 2, 1)
			b, _ := w.Bytes()
			// drop the first descriptor packet: its length is b[1]
			return b[2+int(b[1]):]
		}, "clear the incremental state"},
		"event before its descriptor": {func() []byte {
			w := good()
			w.Counter(1, 2, 1)
			b, _ := w.Bytes()
			// drop the second packet, track 2's descriptor
			first := 2 + int(b[1])
			return append(b[:first:first], b[first+2+int(b[first+1]):]...)
		}, "before its descriptor"},
		"name not interned": {func() []byte {
			w := good()
			w.Begin(1, 1, "a", nil, nil, nil)
			w.End(2, 1)
			b, _ := w.Bytes()
			// the interned name "a" (0x12 len 0x01 'a' inside an entry) renamed to iid 9
			i := bytes.Index(b, []byte{0x08, 0x01, 0x12, 0x01, 'a'})
			b[i+1] = 9
			return b
		}, "not interned"},
	}
	for name, c := range cases {
		_, err := Decode(c.build())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", name, err, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	w := NewWriter(nil, 1)
	w.Describe(Track{UUID: 1, Name: "t"})
	w.Begin(1, 1, "a", []Arg{Int("n", 1)}, nil, nil)
	w.End(2, 1)
	b, _ := w.Bytes()
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		tr, err := Decode(data)
		if err == nil {
			tr.Summarize()
		}
	})
}
