package shard

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAppendValuesMatchReference: the in-place varint and float writers give
// the bytes of binary's appenders, value by value, after any prefix.
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
		prefix := []byte("prefix")[:rng.IntN(7)]
		enc, size := chooseIntEncoding(ints)
		want := bytes.Clone(prefix)
		switch enc {
		case EncConstant:
			want = binary.AppendUvarint(want, zigzag(ints[0]))
		case EncDeltaVarint:
			prev := int64(0)
			for _, v := range ints {
				want = binary.AppendUvarint(want, zigzag(wrappingSub(v, prev)))
				prev = v
			}
		default:
			for _, v := range ints {
				want = binary.AppendUvarint(want, zigzag(v))
			}
		}
		if len(want)-len(prefix) != size {
			t.Fatalf("trial %d: chooseIntEncoding sized %d bytes, the values take %d", trial, size, len(want)-len(prefix))
		}
		if got := appendInts(bytes.Clone(prefix), enc, ints, size); !bytes.Equal(got, want) {
			t.Fatalf("trial %d: %s ints differ from binary.AppendUvarint's", trial, enc)
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
