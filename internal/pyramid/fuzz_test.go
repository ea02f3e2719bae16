package pyramid

import (
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/shard"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpenLoad feeds arbitrary shards to Open and Load and queries whatever
// loads: it must never panic, and a refused chunk must stay unloaded.
func FuzzOpenLoad(f *testing.F) {
	if seed, err := os.ReadFile(filepath.Join("testdata", "layout.shard")); err == nil {
		f.Add(seed)
	}
	for _, n := range []int{0, 1, 50, 700} {
		var in []input
		for i := 0; i < n; i++ {
			in = append(in, input{t: int64(i*i) * 97, v: float64(i % 13), null: i%17 == 5})
		}
		f.Add(encodeLayout(f, build(f, in, Options{MinBucketRows: 3, ChunkRows: 32})))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		defer fuzzlimit.Start(t)()
		// Re-seal the shard's checksum so mutations reach the tables.
		if n := len(raw); n >= 4 {
			binary.LittleEndian.PutUint32(raw[n-4:], crc32.Checksum(raw[:n-4], crc32.MakeTable(crc32.Castagnoli)))
		}
		p, s, err := openShard(raw)
		if err != nil {
			return
		}
		for id := 0; id < p.ChunkCount(); id++ {
			tab, ok := s.Table(chunkName(id))
			if !ok {
				continue
			}
			if err := p.Load(id, tab); err != nil {
				if !errors.Is(err, ErrLayout) {
					t.Fatalf("Load error does not wrap ErrLayout: %v", err)
				}
				if p.Loaded(id) {
					t.Fatal("a refused chunk is loaded")
				}
			}
		}
		ranges := [][2]int64{{math.MinInt64, math.MaxInt64}, {0, 1 << 20}, {-5, 5}}
		for _, c := range p.Chunks() {
			if c.Level < 0 {
				ranges = append(ranges, [2]int64{c.First, c.Last})
			}
		}
		for _, r := range ranges {
			for _, px := range []int{1, 7, 300} {
				p.Plan(r[0], r[1], px)
				p.Query(r[0], r[1], px)
			}
			p.Stats(r[0], r[1])
			SummarizeCapacity(p, p, r[0], r[1])
		}
	})
}

// FuzzBuildQuery builds a series from arbitrary bytes and checks range
// statistics and views against a sequential scan.
func FuzzBuildQuery(f *testing.F) {
	f.Add([]byte{3, 0, 1, 10, 0, 2, 20, 1, 0, 0, 5, 3, 0})
	f.Add([]byte{1, 2, 200, 0, 0, 255, 255, 1, 7, 0, 0, 9, 9, 2, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		if len(data) < 2 || len(data) > 1<<14 {
			return
		}
		temporal := Temporal(data[0] % 3)
		opts := Options{Temporal: temporal, MinBucketRows: 1 + int(data[1]%9), ChunkRows: 2 + int(data[1]/9)}
		data = data[2:]
		var in []input
		var tm int64
		for len(data) >= 3 {
			step := int64(binary.LittleEndian.Uint16(data))
			tm += step * step
			v := float64(int8(data[2]))
			in = append(in, input{t: tm, v: v, null: data[2] == 0x80})
			data = data[3:]
		}
		p := build(t, in, opts)
		rows := bruteRows(in, temporal)
		if p.Rows() != int64(len(rows)) {
			t.Fatalf("%d rows, want %d", p.Rows(), len(rows))
		}
		last := int64(0)
		if len(rows) > 0 {
			last = rows[len(rows)-1].t
		}
		for _, r := range [][2]int64{{0, last}, {last / 3, last / 2}, {last / 5, last}, {1, 1}} {
			for _, px := range []int{1, 3, 40} {
				v, err := p.Query(r[0], r[1], px)
				if err != nil {
					t.Fatal(err)
				}
				checkView(t, "fuzz", p, rows, v)
			}
		}
	})
}

// FuzzDamagedTables changes values inside a valid layout's tables (counts,
// keys, times, flags) and checks Open, Load and queries never panic.
func FuzzDamagedTables(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 3, 0, 255, 255, 255, 255, 255, 255, 255, 127})
	f.Add([]byte{4, 1, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 128})
	var in []input
	var tm int64
	for i := 0; i < 400; i++ {
		tm += int64(1+i%5) * 1000
		in = append(in, input{t: tm, v: float64(i % 13), null: i%29 == 3})
	}
	lim := build(f, []input{{t: 0, v: 8}, {t: 100_000, v: 16}}, Options{Temporal: Setting})
	base := build(f, in, Options{MinBucketRows: 3, ChunkRows: 40, Limit: lim})
	f.Fuzz(func(t *testing.T, ops []byte) {
		defer fuzzlimit.Start(t)()
		lay, err := base.Tables()
		if err != nil {
			t.Fatal(err)
		}
		tables := []*shardTable{{cloneTable(&lay.Header)}, {cloneTable(&lay.Index)}}
		for i := range lay.Chunks {
			tables = append(tables, &shardTable{cloneTable(&lay.Chunks[i])})
		}
		for ; len(ops) >= 12; ops = ops[12:] {
			tab := tables[int(ops[0])%len(tables)].t
			if len(tab.Columns) == 0 || tab.Rows == 0 {
				continue
			}
			col := &tab.Columns[int(ops[1])%len(tab.Columns)]
			row := int(binary.LittleEndian.Uint16(ops[2:])) % tab.Rows
			val := binary.LittleEndian.Uint64(ops[4:])
			switch {
			case col.Valid != nil && val%7 == 0:
				col.Valid[row] = !col.Valid[row]
			case len(col.Ints) > 0:
				col.Ints[row] = int64(val)
			case len(col.Floats) > 0:
				if f := math.Float64frombits(val); !math.IsNaN(f) && !math.IsInf(f, 0) {
					col.Floats[row] = f
				}
			case len(col.Bools) > 0:
				col.Bools[row] = !col.Bools[row]
			}
		}
		p, err := Open(tables[0].t, tables[1].t)
		if err != nil {
			return
		}
		for id := 0; id < p.ChunkCount() && id+2 < len(tables); id++ {
			p.Load(id, tables[id+2].t)
		}
		for _, r := range [][2]int64{{math.MinInt64, math.MaxInt64}, {0, 50_000}, {123_456, 1 << 30}} {
			for _, px := range []int{1, 9, 500} {
				p.Query(r[0], r[1], px)
			}
			p.Stats(r[0], r[1])
			SummarizeCapacity(p, lim, r[0], r[1])
		}
	})
}

type shardTable struct{ t *shard.Table }
