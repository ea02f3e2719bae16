package pyramid

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/shard"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// encodeLayout puts a pyramid's tables into one shard, as a test stand-in for
// the report's shards.
func encodeLayout(t testing.TB, p *Pyramid) []byte {
	t.Helper()
	lay, err := p.Tables()
	if err != nil {
		t.Fatal(err)
	}
	s := &shard.Shard{Kind: "pyramid", Tables: append([]shard.Table{lay.Header, lay.Index}, lay.Chunks...)}
	if lay.Conflicts != nil {
		s.Tables = append(s.Tables, *lay.Conflicts)
	}
	raw, err := shard.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// openShard decodes a shard written by encodeLayout and opens its pyramid
// without loading any chunk.
func openShard(raw []byte) (*Pyramid, *shard.Shard, error) {
	s, err := shard.Decode(raw)
	if err != nil {
		return nil, nil, err
	}
	h, ok1 := s.Table(HeaderTable)
	idx, ok2 := s.Table(IndexTable)
	if !ok1 || !ok2 {
		return nil, nil, errors.New("no header or index table")
	}
	p, err := Open(h, idx)
	if c, ok := s.Table(ConflictsTable); ok && err == nil {
		err = p.LoadConflicts(c)
	}
	return p, s, err
}

func loadChunks(p *Pyramid, s *shard.Shard, ids []int) error {
	for _, id := range ids {
		t, ok := s.Table(chunkName(id))
		if !ok {
			return fmt.Errorf("no table for chunk %d", id)
		}
		if err := p.Load(id, t); err != nil {
			return err
		}
	}
	return nil
}

func TestLayoutRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 60; iter++ {
		in := genSeries(rng, rng.IntN(4000))
		temporal := Temporal(rng.IntN(3))
		p := build(t, in, Options{Temporal: temporal, MinBucketRows: 1 + rng.IntN(8), ChunkRows: 5 + rng.IntN(100)})
		raw := encodeLayout(t, p)
		q, s, err := openShard(raw)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, q.ChunkCount())
		for i := range all {
			all[i] = i
		}
		if err := loadChunks(q, s, all); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalize(p), normalize(q)) {
			t.Fatalf("iter %d: decoded pyramid differs", iter)
		}
		// A second encoding is byte-identical.
		if again := encodeLayout(t, q); !bytes.Equal(raw, again) {
			t.Fatalf("iter %d: re-encoding changed the bytes", iter)
		}
	}
}

// normalize drops representation details the layout does not keep (a nil
// validity slice decodes as all-true flags).
func normalize(p *Pyramid) *Pyramid {
	c := *p
	c.exact = nil
	for _, e := range p.exact {
		e.values = append([]float64(nil), e.values...)
		for i, ok := range e.valid {
			if !ok {
				e.values[i] = 0
			}
		}
		c.exact = append(c.exact, e)
	}
	return &c
}

// TestPartialLoading answers queries from only the chunks Plan and
// IncompleteError name, and checks the answers match the full pyramid.
func TestPartialLoading(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 40; iter++ {
		in := genSeries(rng, 1000+rng.IntN(20000))
		temporal := Temporal(rng.IntN(3))
		p := build(t, in, Options{Temporal: temporal, MinBucketRows: 2 + rng.IntN(16), ChunkRows: 16 + rng.IntN(200)})
		rows := bruteRows(in, temporal)
		raw := encodeLayout(t, p)
		for qi := 0; qi < 10; qi++ {
			q, s, err := openShard(raw)
			if err != nil {
				t.Fatal(err)
			}
			from, to := randomRange(rng, rows)
			px := 1 + rng.IntN(300)
			if err := loadChunks(q, s, q.Plan(from, to, px)); err != nil {
				t.Fatal(err)
			}
			var v *View
			rounds := 1
			for ; ; rounds++ {
				v, err = q.Query(from, to, px)
				var inc *IncompleteError
				if !errors.As(err, &inc) {
					break
				}
				if rounds > 40 {
					t.Fatalf("no answer after %d rounds", rounds)
				}
				if err := loadChunks(q, s, inc.Chunks); err != nil {
					t.Fatal(err)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			want, _ := p.Query(from, to, px)
			if !reflect.DeepEqual(v, want) {
				t.Fatalf("iter %d: partial answer differs\n got %+v\nwant %+v", iter, v.Stats, want.Stats)
			}
			if rounds > 3 {
				t.Errorf("iter %d: %d rounds to answer [%d, %d] at %d px", iter, rounds, from, to, px)
			}
		}
	}
}

func TestGoldenLayout(t *testing.T) {
	var in []input
	for i := 0; i < 40; i++ {
		in = append(in, input{t: int64(i)*1000 + int64(i%3)*7, v: float64((i * 37) % 11), null: i == 17})
	}
	in = append(in, input{t: 39_500, v: 1}, input{t: 39_500, v: 2}) // a conflict
	limit := build(t, []input{{t: -5, v: 8}, {t: 20_000, v: 16}, {t: 30_000, null: true}}, Options{Temporal: Setting})
	p := build(t, in, Options{MinBucketRows: 4, ChunkRows: 8, Limit: limit})
	lay, err := p.Tables()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tab := range append([]shard.Table{lay.Header, lay.Index}, lay.Chunks...) {
		dumpTable(&b, &tab)
	}
	got := b.String()
	path := filepath.Join("testdata", "layout.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "layout.shard"), encodeLayout(t, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("layout differs from %s (run with -update after checking):\n%s", path, got)
	}
	shardBytes, err := os.ReadFile(filepath.Join("testdata", "layout.shard"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shardBytes, encodeLayout(t, p)) {
		t.Error("testdata/layout.shard is stale (run with -update)")
	}
}

func dumpTable(b *strings.Builder, t *shard.Table) {
	fmt.Fprintf(b, "table %s (%d rows)\n", t.Name, t.Rows)
	for _, c := range t.Columns {
		fmt.Fprintf(b, "  %-15s", c.Name)
		for i := 0; i < t.Rows; i++ {
			switch {
			case c.IsNull(i):
				b.WriteString(" null")
			case c.Type == shard.Int64:
				fmt.Fprintf(b, " %d", c.Ints[i])
			case c.Type == shard.Float64:
				fmt.Fprintf(b, " %g", c.Floats[i])
			case c.Type == shard.Bool:
				fmt.Fprintf(b, " %v", c.Bools[i])
			}
		}
		b.WriteByte('\n')
	}
}

func TestLoadRefusesDamage(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	p := build(t, genSeries(rng, 3000), Options{MinBucketRows: 4, ChunkRows: 50})
	lay, err := p.Tables()
	if err != nil {
		t.Fatal(err)
	}
	firstLevel := len(p.exact)
	col := func(tab *shard.Table, name string) *shard.Column {
		c, _ := tab.Column(name)
		return c
	}
	tests := []struct {
		name   string
		chunk  int
		damage func(tab *shard.Table)
	}{
		{"exact time out of order", 0, func(tab *shard.Table) { c := col(tab, "t"); c.Ints[1], c.Ints[2] = c.Ints[2], c.Ints[1] }},
		{"exact first time", 0, func(tab *shard.Table) { col(tab, "t").Ints[0]-- }},
		{"exact missing column", 0, func(tab *shard.Table) { tab.Columns = tab.Columns[:1] }},
		{"exact wrong type", 0, func(tab *shard.Table) { col(tab, "v").Type = shard.Int64 }},
		{"level keys repeat", firstLevel, func(tab *shard.Table) { c := col(tab, "key"); c.Ints[1] = c.Ints[0] }},
		{"level negative count", firstLevel, func(tab *shard.Table) { col(tab, "count").Ints[0] = -1 }},
		{"level min outside bucket", firstLevel, func(tab *shard.Table) { col(tab, "min_dt").Ints[0] += 1 << 60 }},
		{"level null count", firstLevel, func(tab *shard.Table) {
			c := col(tab, "count")
			c.Valid = make([]bool, tab.Rows)
		}},
		{"wrong row count", firstLevel, func(tab *shard.Table) { tab.Rows-- }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := Open(&lay.Header, &lay.Index)
			if err != nil {
				t.Fatal(err)
			}
			tab := cloneTable(&lay.Chunks[tc.chunk])
			tc.damage(tab)
			if err := q.Load(tc.chunk, tab); !errors.Is(err, ErrLayout) {
				t.Errorf("Load = %v, want ErrLayout", err)
			}
			if q.Loaded(tc.chunk) {
				t.Error("a refused chunk is marked loaded")
			}
		})
	}
	if err := (&Pyramid{}).Load(0, &lay.Chunks[0]); !errors.Is(err, ErrLayout) {
		t.Errorf("Load of an unknown chunk = %v", err)
	}
}

func TestOpenRefusesDamage(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	p := build(t, genSeries(rng, 3000), Options{MinBucketRows: 4, ChunkRows: 50})
	lay, err := p.Tables()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		damage func(h, idx *shard.Table)
	}{
		{"version", func(h, _ *shard.Table) { h.Columns[0].Ints[0] = 2 }},
		{"temporal", func(h, _ *shard.Table) { h.Columns[1].Ints[0] = 9 }},
		{"min rows", func(h, _ *shard.Table) { h.Columns[2].Ints[0] = 0 }},
		{"row total", func(h, _ *shard.Table) { h.Columns[4].Ints[0]++ }},
		{"odd level", func(_, idx *shard.Table) { idx.Columns[0].Ints[idx.Rows-1]++ }},
		{"skipped level", func(_, idx *shard.Table) { idx.Columns[0].Ints[idx.Rows-1] += 2 }},
		{"chunk order", func(_, idx *shard.Table) { idx.Columns[2].Ints[1] = idx.Columns[3].Ints[0] - 1 }},
		{"zero rows", func(_, idx *shard.Table) { idx.Columns[1].Ints[0] = 0 }},
		{"key overflow", func(_, idx *shard.Table) { idx.Columns[3].Ints[idx.Rows-1] = 1 << 62 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, idx := cloneTable(&lay.Header), cloneTable(&lay.Index)
			tc.damage(h, idx)
			if _, err := Open(h, idx); !errors.Is(err, ErrLayout) {
				t.Errorf("Open = %v, want ErrLayout", err)
			}
		})
	}
}

func cloneTable(t *shard.Table) *shard.Table {
	c := *t
	c.Columns = nil
	for _, col := range t.Columns {
		col.Ints = append([]int64(nil), col.Ints...)
		col.Floats = append([]float64(nil), col.Floats...)
		col.Bools = append([]bool(nil), col.Bools...)
		if col.Valid != nil {
			col.Valid = append([]bool(nil), col.Valid...)
		}
		c.Columns = append(c.Columns, col)
	}
	return &c
}
