package spanspill

import (
	"bytes"
	"testing"
)

// Spans regrouped into a store sharing the first one's tables, by their
// stored bytes and after a compaction (Move), read back as they were
// added, each with its tag; the stores refuse what would make their
// tables disagree.
func TestShareRegroupsRecords(t *testing.T) {
	spans := generatedSpans(t)
	s, err := New(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fill(t, s, spans)
	d, err := s.Share(t.TempDir(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := s.Add(0, &spans[0]); err == nil {
		t.Fatal("a shared store took a span that could grow its tables")
	}
	if err := d.Add(0, &spans[0]); err == nil {
		t.Fatal("a sharing store took a span to encode")
	}
	want, wantTags := make([][]byte, 2), make([][]uint64, 2)
	buf := &ReadBuffer{}
	for b := range s.Buckets() {
		got, err := s.ReadInto(b, buf)
		if err != nil {
			t.Fatal(err)
		}
		// Keep every other span, compacted as the de-duplication does.
		n := 0
		for k := 0; k < len(got); k += 2 {
			got[n] = got[k]
			buf.Move(n, k)
			n++
		}
		for k := range got[:n] {
			if err := d.AddRecord(k%2, buf, k, &got[k], uint64(b*1000+k)); err != nil {
				t.Fatal(err)
			}
			want[k%2] = append(want[k%2], evidenceBytes(got[k:k+1])...)
			wantTags[k%2] = append(wantTags[k%2], uint64(b*1000+k))
		}
	}
	other, err := New(t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	fill(t, other, spans[:3])
	got, err := other.ReadInto(0, buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AddRecord(0, buf, 0, &got[0], 0); err == nil {
		t.Fatal("a span of a store with other tables was taken by its bytes")
	}
	for b := range d.Buckets() {
		got, err := d.ReadInto(b, buf)
		if err != nil {
			t.Fatal(err)
		}
		var have []byte
		for k := range got {
			have = append(have, evidenceBytes(got[k:k+1])...)
			if buf.Tag(k) != wantTags[b][k] {
				t.Fatalf("bucket %d span %d: tag %d, added with %d", b, k, buf.Tag(k), wantTags[b][k])
			}
		}
		if !bytes.Equal(have, want[b]) {
			t.Fatalf("bucket %d of the sharing store reads back other spans", b)
		}
	}
}
