package metrics

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestSpillWriterKeepsOrder writes pieces of every size across many
// buffers: the file receives exactly the bytes, in order.
func TestSpillWriterKeepsOrder(t *testing.T) {
	var out bytes.Buffer
	sw := newSpillWriter(&out, 100)
	var want []byte
	rng := rand.New(rand.NewPCG(2, 3))
	for k := range 500 {
		p := make([]byte, rng.IntN(350))
		for j := range p {
			p[j] = byte(k + j)
		}
		if n, err := sw.Write(p); n != len(p) || err != nil {
			t.Fatalf("write %d: %d, %v", k, n, err)
		}
		want = append(want, p...)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal("a second Flush failed:", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("wrote %d bytes, want %d, or they differ", out.Len(), len(want))
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

// TestSpillWriterReportsError: a write that fails on the writing goroutine
// is returned by Flush (and by later Writes once it is known).
func TestSpillWriterReportsError(t *testing.T) {
	sw := newSpillWriter(&failingWriter{after: 2}, 16)
	for range 20 {
		sw.Write(make([]byte, 10))
	}
	if err := sw.Flush(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Flush = %v, want the write error", err)
	}
	if _, err := sw.Write([]byte{1}); err == nil {
		t.Fatal("Write after a failure succeeded")
	}
}
