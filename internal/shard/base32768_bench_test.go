package shard

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// BenchmarkDecodeBase32768 decodes the units of a 1 MiB part, as every
// CLI question does for each part of the core it reads.
func BenchmarkDecodeBase32768(b *testing.B) {
	payload := make([]byte, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range payload {
		payload[i] = byte(r.Uint32())
	}
	units := AppendBase32768(nil, payload)
	out := make([]byte, 0, len(payload)+16)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		got, err := AppendDecodeBase32768(out[:0], units)
		if err != nil || !bytes.Equal(got, payload) {
			b.Fatal(err)
		}
	}
}

// The grouped decode appends after what dst holds, leaves its capacity's
// spare byte out of the result, and refuses a unit outside the alphabet
// wherever it stands, in a group or in the tail.
func TestBase32768AppendsAndRefusesEveryBadUnit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{14, 15, 16, 29, 30, 31, 45, 120, 1000} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		units := AppendBase32768(nil, b)
		got, err := AppendDecodeBase32768([]byte("head"), units)
		if err != nil || string(got[:4]) != "head" || !bytes.Equal(got[4:], b) {
			t.Fatalf("%d bytes after a head: got %x, %v", n, got, err)
		}
		for k := 0; k < len(units)/2; k++ {
			for _, bad := range []uint16{0x2fff, 0xb000 + 0x80, 0xffff, 0x0000} {
				u := append([]byte{}, units...)
				u[2*k], u[2*k+1] = byte(bad), byte(bad>>8)
				if _, err := DecodeBase32768(u); err == nil {
					t.Fatalf("%d bytes: unit %d set to U+%04X was accepted", n, k, bad)
				}
			}
		}
	}
}
