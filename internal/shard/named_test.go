package shard

import (
	"encoding/binary"
	"strings"
	"testing"
)

func namedParts(raw []byte, cut int) []Part {
	return []Part{{ID: ID(raw[:cut]), Path: "a.js", Bytes: cut}, {ID: ID(raw[cut:]), Path: "b.js", Bytes: len(raw) - cut}}
}

// DecodeNamed skips only the checksum: with every part's name right, a
// shard whose trailer is wrong still decodes (its bytes are those the
// names were made from), and the same bytes decode as Decode decodes them.
func TestDecodeNamedSkipsTheChecksumOfHashedBytes(t *testing.T) {
	raw, err := Encode(exampleShard())
	if err != nil {
		t.Fatal(err)
	}
	want, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeNamed(raw, namedParts(raw, len(raw)/3))
	if err != nil {
		t.Fatal(err)
	}
	if d := shardDiff(want, got); d != "" {
		t.Fatalf("DecodeNamed and Decode differ: %s", d)
	}
	bad := append([]byte(nil), raw...)
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], ^binary.LittleEndian.Uint32(bad[len(bad)-4:]))
	if _, err := Decode(bad); err == nil {
		t.Fatal("Decode accepted a wrong checksum")
	}
	if _, err := DecodeNamed(bad, namedParts(bad, len(bad)/3)); err != nil {
		t.Fatalf("DecodeNamed of hashed bytes computed the checksum: %v", err)
	}
}

// A damaged part is refused by its hash before anything is decoded, named
// by its file; so are parts that do not cover the shard.
func TestDecodeNamedRefusesDamagedParts(t *testing.T) {
	raw, err := Encode(exampleShard())
	if err != nil {
		t.Fatal(err)
	}
	parts := namedParts(raw, len(raw)/2)
	bad := append([]byte(nil), raw...)
	bad[len(bad)-10] ^= 1
	if _, err := DecodeNamed(bad, parts); err == nil || !strings.Contains(err.Error(), "content hash mismatch: b.js") {
		t.Fatalf("a damaged second part: %v", err)
	}
	if _, err := DecodeNamed(raw, parts[:1]); err == nil {
		t.Fatal("parts covering half the shard were accepted")
	}
	if _, err := DecodeNamed(raw, nil); err == nil {
		t.Fatal("no parts were accepted")
	}
}
