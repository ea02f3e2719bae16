package spanspill

import (
	"bytes"
	"testing"
)

// A bucket holds a write buffer only between its first Add and its next
// read: a store of thousands of buckets would otherwise keep every buffer
// through every pass that reads them. An Add after a read still lands
// after what the bucket held.
func TestWriteBuffersLiveFromAddToRead(t *testing.T) {
	spans := generatedSpans(t)
	s, err := New(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	buffers := func() (n int) {
		for _, b := range s.buckets {
			if b.w != nil {
				n++
			}
		}
		return n
	}
	if n := buffers(); n != 0 {
		t.Fatalf("a new store holds %d write buffers", n)
	}
	want := fill(t, s, spans[:30])
	if n := buffers(); n != 3 {
		t.Fatalf("after writing every bucket, %d write buffers", n)
	}
	if _, err := s.Read(1); err != nil {
		t.Fatal(err)
	}
	if n := buffers(); n != 2 || s.buckets[1].w != nil {
		t.Fatalf("after reading bucket 1: %d write buffers, bucket 1's %v", n, s.buckets[1].w != nil)
	}
	if err := s.Add(1, &spans[30]); err != nil {
		t.Fatal(err)
	}
	want[1] = append(want[1], spans[30])
	for b := range 3 {
		got, err := s.Read(b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(evidenceBytes(got), evidenceBytes(want[b])) {
			t.Fatalf("bucket %d differs from what was added", b)
		}
	}
	if n := buffers(); n != 0 {
		t.Fatalf("after reading every bucket, %d write buffers", n)
	}
}
