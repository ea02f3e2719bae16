package otlp

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// copySpan is what a caller that keeps spans must do with a Transient
// decode: its own copy of the span and its attributes.
func copySpan(sp *model.Span) model.Span {
	c := *sp
	c.Attrs = append(model.Attributes(nil), sp.Attrs...)
	return c
}

// A Transient decode emits the spans a plain one emits, in the same
// order, with the same statistics: only the memory behind them is reused
// once a record is emitted. Records of one span, of many (whose
// attributes fill several slabs), and a damaged record all decode alike.
func TestTransientDecodesTheSameSpans(t *testing.T) {
	var many bytes.Buffer
	many.Write(genTraces(3000, 1))
	many.Write(genTraces(9000, 700))
	many.Write(genTraces(50, 7))
	for name, input := range map[string][]byte{
		"records":   many.Bytes(),
		"damaged":   append(genTraces(500, 20), "{\"resourceSpans\":[{\n"...),
		"one big":   genTraces(6000, 6000),
		"one small": genTraces(1, 1),
	} {
		t.Run(name, func(t *testing.T) {
			decode := func(o Options) ([]model.Span, FileStats, error) {
				var got []model.Span
				st, err := o.Decode(bytes.NewReader(input), "t.jsonl", func(sp *model.Span) error {
					got = append(got, copySpan(sp))
					return nil
				})
				return got, st, err
			}
			plain, pst, perr := decode(Options{})
			reused, rst, rerr := decode(Options{Transient: true})
			if fmt.Sprint(perr) != fmt.Sprint(rerr) || pst != rst {
				t.Fatalf("plain: %v %+v\ntransient: %v %+v", perr, pst, rerr, rst)
			}
			if len(plain) == 0 && name != "damaged" {
				t.Fatal("no spans decoded")
			}
			if !reflect.DeepEqual(plain, reused) {
				for k := range plain {
					if k >= len(reused) || !reflect.DeepEqual(plain[k], reused[k]) {
						t.Fatalf("span %d of %d differs", k, len(plain))
					}
				}
				t.Fatalf("%d spans, %d transient", len(plain), len(reused))
			}
		})
	}
}

// A Transient decode reuses the attribute slabs and span slices of the
// records it has emitted: a long export allocates a fraction of the
// memory a plain decode does, whose every record's attributes are new.
func TestTransientReusesEmittedMemory(t *testing.T) {
	input := genTraces(20000, 50)
	allocated := func(o Options) uint64 {
		var before, after runtimeMem
		before.read()
		if _, err := o.Decode(bytes.NewReader(input), "t.jsonl", func(*model.Span) error { return nil }); err != nil {
			t.Fatal(err)
		}
		after.read()
		return after.total - before.total
	}
	plain, reused := allocated(Options{}), allocated(Options{Transient: true})
	t.Logf("allocated: plain %d bytes, transient %d bytes", plain, reused)
	// 20,000 spans of 11 attributes (72 bytes each) are 15.8 MB of slabs.
	if saved := int64(plain) - int64(reused); saved < 12<<20 {
		t.Errorf("a transient decode allocated %d bytes, a plain one %d: the attribute slabs were not reused", reused, plain)
	}
}

// runtimeMem reads the bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// BenchmarkDecodeEmit decodes to a callback that keeps nothing, as the
// build's spill does, plain and Transient.
func BenchmarkDecodeEmit(b *testing.B) {
	const spans = 100_000
	data := genTraces(spans, 100)
	for _, transient := range []bool{false, true} {
		b.Run(fmt.Sprintf("spans=100k/per_line=100/transient=%v", transient), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			o := Options{Transient: transient}
			for b.Loop() {
				n := 0
				if _, err := o.Decode(bytes.NewReader(data), "traces.jsonl", func(*model.Span) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
				if n != spans {
					b.Fatalf("decoded %d spans", n)
				}
			}
		})
	}
}
