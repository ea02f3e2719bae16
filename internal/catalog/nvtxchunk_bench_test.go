package catalog

import (
	"testing"

	"github.com/dsight/dsight/internal/shard"
)

// BenchmarkDecodeNVTXChunk decodes one busy chunk as the engine's give
// does: the shard, then its packed columns.
func BenchmarkDecodeNVTXChunk(b *testing.B) {
	p := generatedLikeProfile(ProfileChunkRows)
	payloads, err := ProfileChunks(p, p.EpochNS)
	if err != nil {
		b.Fatal(err)
	}
	raw := payloads[0].Raw
	b.Run("shard", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := shard.Decode(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("chunk", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			s, err := shard.Decode(raw)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := DecodeNVTXChunk(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
