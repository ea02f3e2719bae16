package shard

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"
)

// The engine's own SHA-256 equals crypto/sha256 on every length around
// the padding's edges and on long inputs.
func TestSum256GoIsSHA256(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 300_000)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for _, n := range []int{0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 239_737, 300_000} {
		if got, want := sum256Go(b[:n]), sha256.Sum256(b[:n]); got != want {
			t.Fatalf("%d bytes: %x, want %x", n, got, want)
		}
	}
	if got, want := sum256Go([]byte("abc")), sha256.Sum256([]byte("abc")); got != want {
		t.Fatalf("abc: %x, want %x", got, want)
	}
}

// BenchmarkSum256 hashes a quarter MiB, twice an evidence shard's size
// (MB/s is what it reports); under GOOS=js GOARCH=wasm it is the engine's
// hash on the page.
func BenchmarkSum256(b *testing.B) {
	p := make([]byte, 256<<10)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		Sum256(p)
	}
}

func BenchmarkSum256Std(b *testing.B) {
	p := make([]byte, 256<<10)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		sha256.Sum256(p)
	}
}
