package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

// BenchmarkEngineOpen is what the page's give("core") does with a built
// report's core shard, step by step: decode the shard, view it as the
// catalog, start the engine, and answer the summary the page opens on.
// DSIGHT_BENCH_REPORT names the report (for example a 100,000-request
// AIPerf-only one); without it the benchmark is skipped. Under wasm:
// GOOS=js GOARCH=wasm go test -run X -bench EngineOpen ./internal/report
// with $(go env GOROOT)/lib/wasm on PATH.
func BenchmarkEngineOpen(b *testing.B) {
	dir := os.Getenv("DSIGHT_BENCH_REPORT")
	if dir == "" {
		b.Skip("DSIGHT_BENCH_REPORT names no report")
	}
	mb, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		b.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		b.Fatal(err)
	}
	raw, err := readShard(dir, m.Entry.Core)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		for range b.N {
			if _, err := shard.Decode(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	s, err := shard.Decode(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("catalog", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := catalog.Open(s); err != nil {
				b.Fatal(err)
			}
		}
	})
	c, err := catalog.Open(s)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := query.New(c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		for range b.N {
			e, err := query.Open(raw)
			if err != nil {
				b.Fatal(err)
			}
			e.Handle([]byte(`{"op":"summary"}`))
		}
	})
}
