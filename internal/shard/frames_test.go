package shard

import (
	"bytes"
	"errors"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// framesOf cuts raw into its frames' bytes.
func framesOf(t testing.TB, raw []byte) ([]FrameSpan, [][]byte) {
	t.Helper()
	spans, err := FrameSpans(raw)
	if err != nil {
		t.Fatal(err)
	}
	frames := make([][]byte, len(spans))
	for i, sp := range spans {
		frames[i] = raw[sp.Start:sp.End]
	}
	return spans, frames
}

// The frames partition the shard in order, and decoding the head and any
// subset of the table frames gives the tables Decode gives.
func TestFramesDecodeAsTheWhole(t *testing.T) {
	for name, s := range roundTripCases() {
		raw, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		spans, frames := framesOf(t, raw)
		if len(spans) != len(s.Tables)+2 || spans[0].Start != 0 || spans[len(spans)-1].End != len(raw) {
			t.Fatalf("%s: %d frames for %d tables, %+v", name, len(spans), len(s.Tables), spans)
		}
		if !bytes.Equal(bytes.Join(frames, nil), raw) {
			t.Fatalf("%s: the frames do not join into the shard", name)
		}
		if err := CheckFrames(frames); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kind, n, err := DecodeHead(frames[0])
		if err != nil || kind != s.Kind || n != len(s.Tables) {
			t.Fatalf("%s: head %q %d %v", name, kind, n, err)
		}
		tables, err := DecodeTableFrames(frames[1:len(frames)-1], len(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := shardDiff(whole, &Shard{Kind: kind, Tables: tables}); diff != "" {
			t.Fatalf("%s: %s", name, diff)
		}
		for i := 1; i < len(frames)-1; i++ {
			one, err := DecodeTableFrames(frames[i:i+1], len(raw))
			if err != nil || len(one) != 1 || one[0].Name != spans[i].Table || one[0].Name != whole.Tables[i-1].Name {
				t.Fatalf("%s: frame %d alone: %v", name, i, err)
			}
		}
	}
}

// A changed byte anywhere is caught by the checksum over the frames; a
// frame cut short, or two tables in one frame, is refused by its decoder.
func TestDamagedFramesAreRefused(t *testing.T) {
	raw, err := Encode(benchShard(50))
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte{}, raw...)
	bad[len(bad)/2] ^= 1
	_, frames := framesOf(t, raw)
	var damaged [][]byte
	at := 0
	for _, f := range frames {
		damaged = append(damaged, bad[at:at+len(f)])
		at += len(f)
	}
	if err := CheckFrames(damaged); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a changed byte passed the checksum: %v", err)
	}
	table := frames[1]
	if _, err := DecodeTableFrames([][]byte{table[:len(table)-1]}, 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a frame cut short decoded: %v", err)
	}
	if len(frames) > 3 {
		if _, err := DecodeTableFrames([][]byte{append(append([]byte{}, frames[1]...), frames[2]...)}, 0); !errors.Is(err, ErrCorrupt) {
			t.Errorf("two tables in one frame decoded: %v", err)
		}
		if _, err := DecodeTableFrames([][]byte{frames[1], frames[1]}, 0); !errors.Is(err, ErrCorrupt) {
			t.Errorf("one table framed twice decoded: %v", err)
		}
	}
	if _, _, err := DecodeHead(append(append([]byte{}, frames[0]...), 0)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a head with a byte after the table count decoded: %v", err)
	}
	newer := append([]byte{}, frames[0]...)
	newer[len(magic)] = FormatVersion + 1
	if _, _, err := DecodeHead(newer); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("a newer head: %v", err)
	}
}

// FuzzDecodeTableFrames feeds arbitrary bytes to the frame decoders: a
// head, and table frames cut from the input at its first byte. Whatever
// decodes must encode again into frames that decode the same.
func FuzzDecodeTableFrames(f *testing.F) {
	for _, s := range roundTripCases() {
		raw, err := Encode(s)
		if err != nil {
			f.Fatal(err)
		}
		if len(raw) > 1024 {
			continue
		}
		_, frames := framesOf(f, raw)
		f.Add(frames[0])
		for _, fr := range frames[1 : len(frames)-1] {
			f.Add(append([]byte{0}, fr...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		_, _, _ = DecodeHead(data)
		if len(data) == 0 {
			return
		}
		cut := min(int(data[0]), len(data)-1)
		body := data[1:]
		frames := [][]byte{body}
		if cut > 0 {
			frames = [][]byte{body[:cut-1], body[cut-1:]}
		}
		tables, err := decodeTableFrames(frames, fuzzBudget)
		if err != nil {
			return
		}
		raw, err := Encode(&Shard{Kind: "k", Tables: tables})
		if err != nil {
			t.Fatalf("decoded frames do not encode: %v", err)
		}
		_, again := framesOf(t, raw)
		got, err := decodeTableFrames(again[1:len(again)-1], fuzzBudget)
		if err != nil {
			t.Fatalf("re-encoded frames do not decode: %v", err)
		}
		if diff := shardDiff(&Shard{Kind: "k", Tables: tables}, &Shard{Kind: "k", Tables: got}); diff != "" {
			t.Fatalf("re-encoded frames differ: %s", diff)
		}
	})
}

// One FrameInflater inflates frame after frame exactly as Decompress does,
// and refuses a member whose output is not the declared size or that has
// bytes after it.
func TestFrameInflater(t *testing.T) {
	var zr FrameInflater
	for name, s := range roundTripCases() {
		raw, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		gz, err := Compress(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := zr.Inflate(gz, len(raw))
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("%s: inflated %d bytes (%v), want %d", name, len(got), err, len(raw))
		}
		if _, err := zr.Inflate(gz, len(raw)-1); err == nil {
			t.Fatalf("%s: an output longer than declared was accepted", name)
		}
		if _, err := zr.Inflate(gz, len(raw)+1); err == nil {
			t.Fatalf("%s: an output shorter than declared was accepted", name)
		}
		if _, err := zr.Inflate(append(append([]byte{}, gz...), gz...), len(raw)); err == nil {
			t.Fatalf("%s: a second member after the frame was accepted", name)
		}
	}
}

// FuzzFrameInflate checks that FrameInflater never panics, never returns
// other than the declared size, and agrees with Decompress.
func FuzzFrameInflate(f *testing.F) {
	for _, s := range roundTripCases() {
		raw, err := Encode(s)
		if err != nil {
			f.Fatal(err)
		}
		gz, err := Compress(raw)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(gz, uint16(len(raw)))
	}
	var zr FrameInflater
	f.Fuzz(func(t *testing.T, gz []byte, size uint16) {
		defer fuzzlimit.Start(t)()
		got, err := zr.Inflate(gz, int(size))
		if err != nil {
			return
		}
		if len(got) != int(size) {
			t.Fatalf("inflated %d bytes, %d declared", len(got), size)
		}
		want, err := decompress(gz, 1<<16)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Decompress disagrees: %v", err)
		}
	})
}
