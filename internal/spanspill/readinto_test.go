package spanspill

import (
	"bytes"
	"runtime"
	"testing"
	"unsafe"

	"github.com/dsight/dsight/internal/model"
)

// fill spills spans round-robin into the store's buckets and returns what
// each bucket holds.
func fill(t *testing.T, s *Store, spans []model.Span) [][]model.Span {
	t.Helper()
	want := make([][]model.Span, s.Buckets())
	for k := range spans {
		b := k % s.Buckets()
		if err := s.Add(b, &spans[k]); err != nil {
			t.Fatal(err)
		}
		want[b] = append(want[b], spans[k])
	}
	return want
}

// One buffer given to read after read, larger buckets and smaller, reads
// each back exactly as a fresh Read does.
func TestReadIntoReusedBufferReadsTheSame(t *testing.T) {
	spans := generatedSpans(t)
	s, err := New(t.TempDir(), 5)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Buckets of different sizes: the first holds many more spans.
	want := fill(t, s, spans[:len(spans)/2])
	if err := s.Add(0, &spans[len(spans)-1]); err != nil {
		t.Fatal(err)
	}
	want[0] = append(want[0], spans[len(spans)-1])
	buf := &ReadBuffer{}
	for _, b := range []int{0, 3, 1, 0, 4, 2} {
		got, err := s.ReadInto(b, buf)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want[b]) || !bytes.Equal(evidenceBytes(got), evidenceBytes(want[b])) {
			t.Fatalf("bucket %d read into a used buffer differs from what was added", b)
		}
	}
}

// A bucket read into a buffer that held one as large allocates nothing
// (the generated spans hold no nested values, which allocate their own).
func TestReadIntoAllocatesNothingOnceSized(t *testing.T) {
	spans := generatedSpans(t)
	s, err := New(t.TempDir(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fill(t, s, spans)
	buf := &ReadBuffer{}
	if _, err := s.ReadInto(0, buf); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(5, func() {
		if _, err := s.ReadInto(0, buf); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%.0f allocations a read into a sized buffer, want 0", n)
	}
}

// A fresh Read allocates the bucket's bytes once: its strings are views of
// them, not of a second copy.
func TestReadHoldsOneCopyOfTheBytes(t *testing.T) {
	spans := generatedSpans(t)
	long := model.StringValue(string(bytes.Repeat([]byte("x"), 4096)))
	for k := range spans {
		spans[k].Attrs = append(spans[k].Attrs[:len(spans[k].Attrs):len(spans[k].Attrs)], model.Attr{Key: "long", Value: long})
	}
	s, err := New(t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fill(t, s, spans)
	attrs := 0
	for k := range spans {
		attrs += len(spans[k].Attrs)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := s.Read(0)
	runtime.ReadMemStats(&after)
	if err != nil || len(got) != len(spans) {
		t.Fatalf("%d spans, %v", len(got), err)
	}
	var span model.Span
	var attr model.Attr
	decoded := uint64(len(spans))*uint64(sizeOf(span)) + uint64(attrs)*uint64(sizeOf(attr))
	raw := uint64(s.Bytes())
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > raw+raw/4+decoded {
		t.Fatalf("a read of %d spilled bytes allocated %d (%d for the spans and attributes): the bytes are copied", raw, alloc, decoded)
	}
}

func sizeOf[T any](v T) uintptr { return unsafe.Sizeof(v) }
