package shard

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkOpenEnvelope opens a 1 MiB payload's script as every CLI
// question opens the report's core: the base64 check runs over each byte.
func BenchmarkOpenEnvelope(b *testing.B) {
	gz := make([]byte, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range gz {
		gz[i] = byte(r.Uint32())
	}
	script := Envelope(ID(gz), gz)
	b.SetBytes(int64(len(script)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := OpenEnvelope(script); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecompressSized decompresses a 4 MiB shard: the output buffer
// is sized from the gzip trailer, so it is allocated once.
func BenchmarkDecompressSized(b *testing.B) {
	raw := make([]byte, 4<<20)
	for i := range raw {
		raw[i] = byte(i % 251)
	}
	gz, err := Compress(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decompress(gz); err != nil {
			b.Fatal(err)
		}
	}
}
