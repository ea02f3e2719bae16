package shard

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAppendValuesMatchReference: the in-place varint and float writers give
// the bytes of binary's appenders, value by value, after any prefix, and
// the integers take the form the reference chooses.
func TestAppendValuesMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	for trial := range 400 {
		n := rng.IntN(300)
		ints, floats := make([]int64, n), make([]float64, n)
		x := int64(rng.Uint64())
		for i := range n {
			switch rng.IntN(4) {
			case 0:
				x = int64(rng.Uint64()) // any magnitude, either sign
			case 1:
				x = []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)]
			default:
				x += int64(rng.IntN(1 << uint(rng.IntN(40))))
			}
			ints[i], floats[i] = x, float64(x)*rng.Float64()
		}
		if trial%9 == 0 && n > 0 {
			for i := range ints {
				ints[i] = ints[0]
			}
		}
		if trial%7 == 3 && n > 2 { // 8-, 9- and 10-byte varints
			for i := range ints {
				ints[i] = []int64{1<<55 - 1, -(1 << 55), 1 << 55, -(1<<55 + 1), 1<<49 - 1}[rng.IntN(5)]
			}
		}
		prefix := []byte("prefix")[:rng.IntN(7)]
		want, wantEnc := referenceInts(bytes.Clone(prefix), ints)
		got, enc := appendChosenInts(bytes.Clone(prefix), ints)
		if enc != wantEnc || !bytes.Equal(got, want) {
			t.Fatalf("trial %d: appendChosenInts wrote %s ints %x, the reference %s %x", trial, enc, got, wantEnc, want)
		}
		want = bytes.Clone(prefix)
		for _, v := range floats {
			want = binary.LittleEndian.AppendUint64(want, math.Float64bits(v))
		}
		if got := appendFloats(bytes.Clone(prefix), EncFloat64LE, floats); !bytes.Equal(got, want) {
			t.Fatalf("trial %d: floats differ from binary.LittleEndian.AppendUint64's", trial)
		}
	}
}

// TestAppendEncodeAfterPrefix: AppendEncode leaves dst's bytes and appends
// exactly Encode's, whatever dst held before.
func TestAppendEncodeAfterPrefix(t *testing.T) {
	s := exampleShard()
	want, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	dst := append(make([]byte, 0, 3), "abc"...)
	got, err := AppendEncode(dst, s)
	if err != nil {
		t.Fatal(err)
	}
	if string(got[:3]) != "abc" || !bytes.Equal(got[3:], want) {
		t.Fatal("AppendEncode did not append Encode's bytes after dst")
	}
	again, err := AppendEncode(got[:0], s) // reusing the buffer
	if err != nil || !bytes.Equal(again, want) {
		t.Fatalf("AppendEncode into a reused buffer: %v", err)
	}
}

// referenceInts is the documented integer choice (docs/format/shard.md,
// "Encodings") written the plain way: both varint forms sized whole, the
// smaller taken, a tie to the deltas when 7/8 of the steps do not fall,
// then appended with binary.AppendUvarint.
func referenceInts(dst []byte, vals []int64) ([]byte, Encoding) {
	if len(vals) == 0 {
		return dst, EncVarint
	}
	if !slices.ContainsFunc(vals, func(v int64) bool { return v != vals[0] }) {
		return binary.AppendUvarint(dst, zigzag(vals[0])), EncConstant
	}
	var plain, delta []byte
	rising := 0
	for i, v := range vals {
		plain = binary.AppendUvarint(plain, zigzag(v))
		prev := int64(0)
		if i > 0 {
			prev = vals[i-1]
			if v >= prev {
				rising++
			}
		}
		delta = binary.AppendUvarint(delta, zigzag(wrappingSub(v, prev)))
	}
	if len(delta) < len(plain) || len(delta) == len(plain) && rising*8 >= (len(vals)-1)*7 {
		return append(dst, delta...), EncDeltaVarint
	}
	return append(dst, plain...), EncVarint
}
