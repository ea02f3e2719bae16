package shard

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"github.com/dsight/dsight/internal/golden"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGolden pins the byte layout: a change here is a format change and
// must come with a FormatVersion bump and a docs/format/shard.md update.
func TestGolden(t *testing.T) {
	raw, err := Encode(exampleShard())
	if err != nil {
		t.Fatal(err)
	}
	got := hex.Dump(raw)
	path := filepath.Join("testdata", "example.hex")
	if *golden.Update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs; the shard layout changed:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// withCRC appends a correct trailer, so a test can reach the parser with
// bytes the checksum would otherwise reject.
func withCRC(body []byte) []byte {
	out := bytes.Clone(body)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// hand builds a shard body byte by byte.
type hand []byte

func (h hand) uv(v uint64) hand  { return binary.AppendUvarint(h, v) }
func (h hand) b(v ...byte) hand  { return append(h, v...) }
func (h hand) str(s string) hand { return append(h.uv(uint64(len(s))), s...) }

// header starts a body with one table of the given rows and column count.
func header(rows, cols uint64) hand {
	return hand(magic).b(FormatVersion).str("k").uv(1).str("t").uv(rows).uv(cols)
}

// column appends a column with the given payload.
func (h hand) column(name string, typ Type, enc Encoding, payload ...byte) hand {
	return h.str(name).b(byte(typ), byte(enc)).uv(uint64(len(payload))).b(payload...)
}

func TestDecodeErrors(t *testing.T) {
	example, err := Encode(exampleShard())
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(example)
	flipped[20] ^= 0x40
	newer := bytes.Clone(example)
	newer[len(magic)] = FormatVersion + 1
	zero := bytes.Clone(example)
	zero[len(magic)] = 0
	nan := binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN()))
	inf := binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.Inf(1)))

	tests := []struct {
		name    string
		raw     []byte
		wantErr string
	}{
		{"empty", nil, "not a dsight shard"},
		{"bad magic", append([]byte("PK\x03\x04"), example[4:]...), "not a dsight shard (starts with 50 4b 03 04)"},
		{"gzip instead of raw", []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, "not a dsight shard"},
		{"magic only", []byte(magic), "truncated header"},
		{"newer version", newer, "unsupported shard format version 2 (this reader reads <= 1)"},
		{"version zero", zero, "unsupported shard format version 0"},
		{"newer version, header only", []byte(magic + "\x07"), "unsupported shard format version 7 (this reader reads <= 1)"},
		{"bad checksum", flipped, "checksum mismatch"},
		{"trailing bytes", withCRC(append(bytes.Clone(example[:len(example)-4]), 0)), "1 trailing bytes after the last table"},
		{"empty kind", withCRC(hand(magic).b(FormatVersion).uv(0).uv(0)), "empty kind"},
		{"huge table count", withCRC(hand(magic).b(FormatVersion).str("k").uv(1 << 40)), "exceeds the limit"},
		{"table count beyond bytes", withCRC(hand(magic).b(FormatVersion).str("k").uv(1000)), "needs more than"},
		{"name beyond bytes", withCRC(hand(magic).b(FormatVersion).uv(50).b('k')), "truncated kind"},
		{"long name", withCRC(hand(magic).b(FormatVersion).uv(maxNameBytes + 1)), "exceeds the limit"},
		{"varint overflow", withCRC(hand(magic).b(FormatVersion).b(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)), "overflows"},
		{"too many rows", withCRC(header(maxRows+1, 0)), "rows exceeds the limit"},
		{"duplicate table", withCRC(hand(magic).b(FormatVersion).str("k").uv(2).str("t").uv(0).uv(0).str("t").uv(0).uv(0)), "duplicate table name"},
		{"duplicate column", withCRC(header(0, 2).column("c", Bool, EncBitmap, validAll).column("c", Bool, EncBitmap, validAll)), "duplicate column name"},
		{"unknown type", withCRC(header(0, 1).column("c", 9, EncVarint, validAll)), "unknown column type 9"},
		{"encoding for another type", withCRC(header(0, 1).column("c", String, EncVarint, validAll)), "encoding varint is not defined for string columns"},
		{"unknown encoding", withCRC(header(0, 1).column("c", Int64, 77, validAll)), "encoding encoding(77) is not defined"},
		{"payload beyond bytes", withCRC(header(0, 1).str("c").b(byte(Bool), byte(EncBitmap)).uv(9).b(validAll)), "payload of 9 bytes but only 1 remain"},
		{"unknown validity flag", withCRC(header(0, 1).column("c", Bool, EncBitmap, 3)), "unknown validity flag 3"},
		{"validity padding set", withCRC(header(3, 1).column("c", Bool, EncBitmap, validBitmap, 0b1000_0001, 0b1)), "validity bitmap has padding bits set"},
		{"bool padding set", withCRC(header(2, 1).column("c", Bool, EncBitmap, validAll, 0b111)), "bool bitmap has padding bits set"},
		{"bool bitmap short", withCRC(header(9, 1).column("c", Bool, EncBitmap, validAll, 0xff)), "truncated bool bitmap"},
		{"constant without values", withCRC(header(2, 1).column("c", Int64, EncConstant, validNone, 4)), "constant encoding without values"},
		{"ints short", withCRC(header(3, 1).column("c", Int64, EncVarint, validAll, 2, 4)), "3 values need at least 3 bytes"},
		{"ints truncated varint", withCRC(header(2, 1).column("c", Int64, EncVarint, validAll, 2, 0x80)), "value: truncated"},
		{"ints trailing", withCRC(header(1, 1).column("c", Int64, EncVarint, validAll, 2, 4)), "1 trailing bytes in column payload"},
		{"floats short", withCRC(header(1, 1).column("c", Float64, EncFloat64LE, validAll, 1, 2, 3)), "1 values need 8 bytes, 3 remain"},
		{"NaN", withCRC(header(1, 1).column("c", Float64, EncFloat64LE, append([]byte{validAll}, nan...)...)), "non-finite"},
		{"constant Inf", withCRC(header(4, 1).column("c", Float64, EncConstant, append([]byte{validAll}, inf...)...)), "non-finite"},
		{"dictionary bigger than values", withCRC(header(1, 1).column("c", String, EncDictionary, validAll, 2, 1, 'a', 1, 'b', 0)), "dictionary of 2 entries for 1 values"},
		{"dictionary entry beyond bytes", withCRC(header(1, 1).column("c", String, EncDictionary, validAll, 1, 9, 'a')), "truncated dictionary entry"},
		{"dictionary index out of range", withCRC(header(2, 1).column("c", String, EncDictionary, validAll, 1, 1, 'a', 0, 1)), "dictionary index 1 out of range"},
		{"error names column", withCRC(header(1, 1).column(`x"y`, Int64, EncVarint, validAll)), `table "t" column "x\"y": offset`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Decode(tt.raw)
			if err == nil {
				t.Fatalf("Decode succeeded (%+v), want error containing %q", s, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Decode error = %q, want it to contain %q", err, tt.wantErr)
			}
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("error %q wraps neither ErrCorrupt nor ErrUnsupportedVersion", err)
			}
		})
	}
}

func TestDecodeVersionIsTyped(t *testing.T) {
	raw, _ := Encode(exampleShard())
	raw[len(magic)] = 200
	_, err := Decode(raw)
	if !errors.Is(err, ErrUnsupportedVersion) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("newer version: %v", err)
	}
}

// TestDecodeBudget checks that memory driven by row counts (constant and
// all-null columns cost a few bytes each) stops at the budget. It uses a
// small budget to stay fast; Decode passes maxDecodedBytes.
func TestDecodeBudget(t *testing.T) {
	const rows, budget = 1 << 16, 1 << 20
	h := header(rows, 3)
	for _, name := range []string{"a", "b", "c"} {
		h = h.column(name, Int64, EncConstant, validAll, 2) // 512 KiB each once decoded
	}
	_, err := decode(withCRC(h), budget)
	if err == nil || !strings.Contains(err.Error(), `column "c": offset`) || !strings.Contains(err.Error(), "decoded shard would exceed 1048576 bytes") {
		t.Fatalf("decode error = %v, want the budget to stop column c", err)
	}
}

// TestTruncation cuts a valid shard at every offset: each prefix must fail,
// both as is (the checksum catches it) and with a forged valid checksum (the
// parser itself must notice).
func TestTruncation(t *testing.T) {
	for name, s := range roundTripCases() {
		raw, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		body := raw[:len(raw)-trailerBytes]
		for n := 0; n < len(raw); n++ {
			if _, err := Decode(raw[:n]); err == nil {
				t.Fatalf("%s: Decode of the first %d of %d bytes succeeded", name, n, len(raw))
			}
			if n < len(body) {
				if _, err := Decode(withCRC(body[:n])); err == nil {
					t.Fatalf("%s: Decode of the first %d of %d body bytes with a forged checksum succeeded", name, n, len(body))
				}
			}
		}
	}
}

// TestBitFlips flips every bit of a small shard behind a forged checksum:
// decoding may succeed or fail, but must not panic, and what it accepts must
// encode again.
func TestBitFlips(t *testing.T) {
	raw, _ := Encode(exampleShard())
	body := raw[:len(raw)-trailerBytes]
	for i := headerFixedBytes; i < len(body); i++ {
		for bit := 0; bit < 8; bit++ {
			mutated := bytes.Clone(body)
			mutated[i] ^= 1 << bit
			s, err := Decode(withCRC(mutated))
			if err != nil {
				continue
			}
			if _, err := Encode(s); err != nil {
				t.Fatalf("byte %d bit %d: decoded shard does not encode: %v", i, bit, err)
			}
		}
	}
}
