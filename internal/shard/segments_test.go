//go:build !js

package shard

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/klauspost/compress/flate"
	kgzip "github.com/klauspost/compress/gzip"
)

// segmentedShard is a raw shard of several tables of some size.
func segmentedShard(t *testing.T) []byte {
	t.Helper()
	s := &Shard{Kind: "metric"}
	for k := range 6 {
		n := 3000 * (k + 1)
		ints, floats := make([]int64, n), make([]float64, n)
		for i := range n {
			ints[i], floats[i] = int64(i*i%977), float64(i%31)/7
		}
		s.Tables = append(s.Tables, Table{Name: "t" + string(rune('a'+k)), Rows: n, Columns: []Column{
			{Name: "i", Type: Int64, Ints: ints}, {Name: "f", Type: Float64, Floats: floats}}})
	}
	raw, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// A segmented member inflates whole, with either gzip reader, to the raw
// shard, and each of its segments alone to its frame; it is the same
// bytes every time.
func TestSegmentedMemberReadsWholeOrByFrame(t *testing.T) {
	raw := segmentedShard(t)
	gz, err := CompressSegmented(raw)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := CompressSegmented(raw); !bytes.Equal(gz, again) {
		t.Fatal("two compressions differ")
	}
	if got, err := Decompress(gz); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("Decompress: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("compress/gzip: %v", err)
	}
	spans, err := FrameSpans(raw)
	if err != nil {
		t.Fatal(err)
	}
	segs, ok, err := Segments(gz)
	if err != nil || !ok || len(segs) != len(spans) {
		t.Fatalf("%d segments for %d frames, ok %v, %v", len(segs), len(spans), ok, err)
	}
	for k, s := range segs {
		got, err := InflateSegment(gz, s)
		if err != nil || !bytes.Equal(got, raw[spans[k].Start:spans[k].End]) {
			t.Fatalf("segment %d: %v", k, err)
		}
	}
}

// A member without segments reads as such; a damaged list, or a segment
// whose bytes are not its frame's, is refused.
func TestSegmentsRefuseDamage(t *testing.T) {
	raw := segmentedShard(t)
	plain, err := Compress(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := Segments(plain); ok || err != nil {
		t.Fatalf("a plain member: ok %v, %v", ok, err)
	}
	gz, err := CompressSegmented(raw)
	if err != nil {
		t.Fatal(err)
	}
	segs, _, _ := Segments(gz)
	for _, at := range []int{14, 17, 18} { // the subfield id, the count, a length
		bad := bytes.Clone(gz)
		bad[at] ^= 0x01
		if _, ok, err := Segments(bad); err == nil && ok {
			if s2, _, _ := Segments(bad); len(s2) == len(segs) && s2[1] == segs[1] {
				t.Errorf("byte %d damaged: the list reads the same", at)
			}
		}
	}
	short := segs[2]
	short.Raw--
	if _, err := InflateSegment(gz, short); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a segment read short: %v", err)
	}
	long := segs[2]
	long.Raw++
	if _, err := InflateSegment(gz, long); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a segment read long: %v", err)
	}
}

// FuzzSegments: a member's segment list is refused or tiles the member,
// and a segment of it inflates to its raw size or is refused; nothing
// panics or reads outside the member.
func FuzzSegments(f *testing.F) {
	small := &Shard{Kind: "metric", Tables: []Table{
		{Name: "a", Rows: 3, Columns: []Column{{Name: "i", Type: Int64, Ints: []int64{1, 2, 3}}}},
		{Name: "b", Rows: 1, Columns: []Column{{Name: "f", Type: Float64, Floats: []float64{0.5}}}},
	}}
	raw, err := Encode(small)
	if err != nil {
		f.Fatal(err)
	}
	gz, err := CompressSegmented(raw)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(gz)
	plain, _ := Compress(raw)
	f.Add(plain)
	f.Fuzz(func(t *testing.T, gz []byte) {
		defer fuzzlimit.Start(t)()
		segs, ok, err := Segments(gz)
		if err != nil || !ok {
			return
		}
		at := segs[0].Offset
		for _, s := range segs {
			if s.Offset != at || s.Stored < 0 || s.Raw < 0 {
				t.Fatalf("segments %+v do not tile the member", segs)
			}
			at += s.Stored
			if out, err := InflateSegment(gz, s); err == nil && len(out) != s.Raw {
				t.Fatalf("segment %+v inflated to %d bytes", s, len(out))
			}
		}
		if at != len(gz)-8 {
			t.Fatalf("segments end at %d of %d", at, len(gz))
		}
	})
}

// Metric summaries are deflated at level 3 (docs/format/shard.md,
// "Compression"), whole or segment by segment, and every other shard at
// level 6 as before: a small summary's member is a fresh level-3 writer's,
// and each segment of a large one is its frame deflated alone at level 3.
func TestSummariesCompressAtLevel3(t *testing.T) {
	raw := segmentedShard(t)
	spans, err := FrameSpans(raw)
	if err != nil {
		t.Fatal(err)
	}
	small := raw[spans[1].Start:spans[1].End] // any bytes: the level is what is checked
	if len(small) >= SegmentedFrom || len(raw) < SegmentedFrom {
		t.Fatalf("fixture sizes %d and %d do not straddle %d", len(small), len(raw), SegmentedFrom)
	}
	fresh := func(level int, b []byte) []byte {
		var out bytes.Buffer
		zw, err := kgzip.NewWriterLevel(&out, level)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	gz, err := CompressSummary(small)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gz, fresh(3, small)) {
		t.Error("a small summary is not a level-3 gzip member")
	}
	if core, _ := Compress(small); !bytes.Equal(core, fresh(6, small)) || bytes.Equal(core, gz) {
		t.Error("Compress no longer writes level 6, or writes what a summary's level does")
	}
	gz, err = CompressSummary(raw)
	if err != nil {
		t.Fatal(err)
	}
	segs, ok, err := Segments(gz)
	if err != nil || !ok || len(segs) != len(spans) {
		t.Fatalf("%d segments for %d frames, ok %v, %v", len(segs), len(spans), ok, err)
	}
	for k, s := range segs {
		var want bytes.Buffer
		zw, _ := flate.NewWriter(&want, 3)
		zw.Write(raw[spans[k].Start:spans[k].End])
		if k == len(segs)-1 {
			zw.Close()
		} else {
			zw.Flush()
		}
		if !bytes.Equal(gz[s.Offset:s.Offset+s.Stored], want.Bytes()) {
			t.Fatalf("segment %d is not its frame deflated alone at level 3", k)
		}
	}
}
