package shard

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// exampleShard is the small shard behind the golden dump and the worked
// example in docs/format/shard.md.
func exampleShard() *Shard {
	return &Shard{Kind: "core", Tables: []Table{{
		Name: "req",
		Rows: 3,
		Columns: []Column{
			{Name: "id", Type: Int64, Ints: []int64{10, 11, 12}},
			{Name: "model", Type: String, Strings: []string{"a", "b", "a"}},
			{Name: "ttft", Type: Float64, Floats: []float64{0.5, 0, 0.25}, Valid: []bool{true, false, true}},
			{Name: "ok", Type: Bool, Bools: []bool{true, false, true}},
		},
	}}}
}

func roundTripCases() map[string]*Shard {
	allNull := []bool{false, false, false, false}
	return map[string]*Shard{
		"example":      exampleShard(),
		"no tables":    {Kind: "metrics"},
		"empty tables": {Kind: "core", Tables: []Table{{Name: "a"}, {Name: "b", Rows: 5}}},
		"zero-row columns": {Kind: "core", Tables: []Table{{Name: "t", Columns: []Column{
			{Name: "i", Type: Int64}, {Name: "f", Type: Float64, Floats: []float64{}},
			{Name: "s", Type: String, Valid: []bool{}}, {Name: "b", Type: Bool},
		}}}},
		"nulls everywhere": {Kind: "core", Tables: []Table{{Name: "t", Rows: 4, Columns: []Column{
			{Name: "i", Type: Int64, Ints: []int64{0, 7, 0, -7}, Valid: []bool{false, true, false, true}},
			{Name: "f", Type: Float64, Floats: make([]float64, 4), Valid: allNull},
			{Name: "s", Type: String, Strings: []string{"", "x", "", "y"}, Valid: []bool{true, true, false, true}},
			{Name: "b", Type: Bool, Bools: []bool{false, true, true, false}, Valid: []bool{true, false, true, true}},
			{Name: "all valid flags", Type: Int64, Ints: []int64{1, 2, 3, 4}, Valid: []bool{true, true, true, true}},
		}}}},
		"hostile strings": {Kind: "core", Tables: []Table{{Name: "t", Rows: 8, Columns: []Column{
			{Name: "s", Type: String, Strings: []string{
				`<img src=x onerror=alert(1)>`, `"quoted" 'single' \back`, `</script><script>alert(1)</script>`,
				"naïve 日本語 🚀", "", "\x00\xff invalid utf-8 \xc3", strings.Repeat("long ", 1000), "a",
			}},
			{Name: `</script>"col"`, Type: Int64, Ints: []int64{1, 1, 1, 1, 1, 1, 1, 1}},
		}}}},
		"int extremes": {Kind: "core", Tables: []Table{{Name: "t", Rows: 6, Columns: []Column{
			{Name: "swing", Type: Int64, Ints: []int64{math.MinInt64, math.MaxInt64, math.MinInt64, 0, math.MaxInt64, -1}},
			{Name: "rising", Type: Int64, Ints: []int64{math.MinInt64, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}},
			{Name: "const max", Type: Int64, Ints: []int64{math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64}},
			{Name: "floats", Type: Float64, Floats: []float64{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, 1e-300}},
			{Name: "const float", Type: Float64, Floats: []float64{math.Copysign(0, -1), math.Copysign(0, -1), 0, 0, 0, 0}, Valid: []bool{true, true, false, false, false, false}},
		}}}},
		"several tables": {Kind: "metrics", Tables: []Table{
			{Name: "series", Rows: 2, Columns: []Column{{Name: "name", Type: String, Strings: []string{"kv_cache", "queue"}}}},
			{Name: "points", Rows: 3, Columns: []Column{
				{Name: "t", Type: Int64, Ints: []int64{100, 200, 300}},
				{Name: "v", Type: Float64, Floats: []float64{1.5, 1.5, 1.5}},
			}},
		}},
	}
}

func TestRoundTrip(t *testing.T) {
	for name, s := range roundTripCases() {
		t.Run(name, func(t *testing.T) {
			raw, err := Encode(s)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			got, err := Decode(raw)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := shardDiff(s, got); diff != "" {
				t.Fatalf("decoded shard differs: %s", diff)
			}
			again, err := Encode(got)
			if err != nil {
				t.Fatalf("re-Encode: %v", err)
			}
			if !bytes.Equal(raw, again) {
				t.Fatalf("re-encoding the decoded shard changed the bytes")
			}
		})
	}
}

func TestDecodedValidIsCanonical(t *testing.T) {
	s := roundTripCases()["nulls everywhere"]
	got := mustRoundTrip(t, s)
	cols := got.Tables[0].Columns
	if cols[4].Valid != nil {
		t.Errorf("all-true Valid should decode as nil, got %v", cols[4].Valid)
	}
	if len(cols[1].Valid) != 4 || cols[1].Valid[0] {
		t.Errorf("all-null column should decode with 4 false flags, got %v", cols[1].Valid)
	}
	if cols[0].Ints[0] != 0 || cols[2].Strings[2] != "" {
		t.Errorf("null rows should decode as zero values")
	}
}

func TestIntEncodingChoice(t *testing.T) {
	tests := []struct {
		name string
		vals []int64
		want Encoding
	}{
		{"empty", nil, EncVarint},
		{"single", []int64{42}, EncConstant},
		{"constant", []int64{5, 5, 5, 5}, EncConstant},
		{"timestamps", []int64{1_700_000_000_000_000_000, 1_700_000_000_000_001_000, 1_700_000_000_000_002_013}, EncDeltaVarint},
		{"small sorted ids tie goes to delta", []int64{0, 1, 2, 3, 4, 5, 6, 7}, EncDeltaVarint},
		{"small unordered codes tie goes to plain", []int64{3, 0, 5, 1, 4, 0, 2, 5}, EncVarint},
		{"random large", []int64{1 << 40, 3, 1 << 41, 7, 1 << 39}, EncVarint},
		{"overflowing swing", []int64{math.MinInt64, math.MaxInt64, math.MinInt64}, EncDeltaVarint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := appendChosenInts(nil, tt.vals); got != tt.want {
				t.Errorf("appendChosenInts(%v) = %s, want %s", tt.vals, got, tt.want)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	s := benchShard(5000)
	a, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("Encode twice gave different bytes")
	}
	ga, err := Compress(a)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := Compress(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ga, gb) {
		t.Fatal("Compress twice gave different bytes")
	}
	if ID(ga) != ID(gb) {
		t.Fatal("ID differs for identical input")
	}
}

func TestEncodeRejects(t *testing.T) {
	col := func(c Column) *Shard {
		return &Shard{Kind: "k", Tables: []Table{{Name: "t", Rows: 2, Columns: []Column{c}}}}
	}
	tests := []struct {
		name    string
		s       *Shard
		wantErr string
	}{
		{"empty kind", &Shard{}, "empty kind"},
		{"empty table name", &Shard{Kind: "k", Tables: []Table{{}}}, "empty table name"},
		{"duplicate table", &Shard{Kind: "k", Tables: []Table{{Name: "t"}, {Name: "t"}}}, "duplicate table name"},
		{"negative rows", &Shard{Kind: "k", Tables: []Table{{Name: "t", Rows: -1}}}, "rows outside"},
		{"too many rows", &Shard{Kind: "k", Tables: []Table{{Name: "t", Rows: maxRows + 1}}}, "rows outside"},
		{"long name", &Shard{Kind: strings.Repeat("k", maxNameBytes+1)}, "exceeds the limit"},
		{"zero type", col(Column{Name: "c"}), "invalid type 0"},
		{"short values", col(Column{Name: "c", Type: Int64, Ints: []int64{1}}), "1 int64 values for 2 rows"},
		{"short validity", col(Column{Name: "c", Type: Int64, Ints: []int64{1, 2}, Valid: []bool{true}}), "1 validity flags"},
		{"mixed slices", col(Column{Name: "c", Type: Int64, Ints: []int64{1, 2}, Bools: []bool{true}}), "another type"},
		{"NaN", col(Column{Name: "c", Type: Float64, Floats: []float64{1, math.NaN()}}), "non-finite"},
		{"Inf", col(Column{Name: "c", Type: Float64, Floats: []float64{math.Inf(-1), 1}}), "non-finite"},
		{"duplicate column", &Shard{Kind: "k", Tables: []Table{{Name: "t", Columns: []Column{
			{Name: "c", Type: Bool}, {Name: "c", Type: Bool}}}}}, "duplicate column name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Encode(tt.s)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Encode error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
	// NaN at a null row is not stored, so it is not an error.
	ok := col(Column{Name: "c", Type: Float64, Floats: []float64{1, math.NaN()}, Valid: []bool{true, false}})
	if _, err := Encode(ok); err != nil {
		t.Fatalf("NaN at a null row: %v", err)
	}
}

func TestLookups(t *testing.T) {
	s := exampleShard()
	tab, ok := s.Table("req")
	if !ok || tab.Rows != 3 {
		t.Fatalf("Table(req) = %v, %v", tab, ok)
	}
	c, ok := tab.Column("ttft")
	if !ok || c.Type != Float64 || !c.IsNull(1) || c.IsNull(0) {
		t.Fatalf("Column(ttft) = %+v, %v", c, ok)
	}
	if _, ok := tab.Column("missing"); ok {
		t.Fatal("Column(missing) found")
	}
	if _, ok := s.Table("missing"); ok {
		t.Fatal("Table(missing) found")
	}
}

func mustRoundTrip(t testing.TB, s *Shard) *Shard {
	t.Helper()
	raw, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// shardDiff describes the first difference between two shards, comparing
// what the format stores: null rows compare equal whatever value their slot
// holds, an all-true Valid equals nil, and floats compare by bits.
func shardDiff(want, got *Shard) string {
	if want.Kind != got.Kind {
		return fmt.Sprintf("kind %q, want %q", got.Kind, want.Kind)
	}
	if len(want.Tables) != len(got.Tables) {
		return fmt.Sprintf("%d tables, want %d", len(got.Tables), len(want.Tables))
	}
	for ti := range want.Tables {
		w, g := &want.Tables[ti], &got.Tables[ti]
		if w.Name != g.Name || w.Rows != g.Rows || len(w.Columns) != len(g.Columns) {
			return fmt.Sprintf("table %d: got %q rows %d cols %d, want %q rows %d cols %d",
				ti, g.Name, g.Rows, len(g.Columns), w.Name, w.Rows, len(w.Columns))
		}
		for ci := range w.Columns {
			wc, gc := &w.Columns[ci], &g.Columns[ci]
			if wc.Name != gc.Name || wc.Type != gc.Type {
				return fmt.Sprintf("table %q column %d: got %q %s, want %q %s", w.Name, ci, gc.Name, gc.Type, wc.Name, wc.Type)
			}
			if gc.valueLen() != w.Rows || (gc.Valid != nil && len(gc.Valid) != w.Rows) {
				return fmt.Sprintf("column %q: wrong slice lengths", wc.Name)
			}
			for i := 0; i < w.Rows; i++ {
				if wc.IsNull(i) != gc.IsNull(i) {
					return fmt.Sprintf("column %q row %d: null %v, want %v", wc.Name, i, gc.IsNull(i), wc.IsNull(i))
				}
				if !wc.IsNull(i) && !sameCell(wc, gc, i) {
					return fmt.Sprintf("column %q row %d: got %s, want %s", wc.Name, i, cell(gc, i), cell(wc, i))
				}
			}
		}
	}
	return ""
}

func sameCell(a, b *Column, i int) bool {
	switch a.Type {
	case Int64:
		return a.Ints[i] == b.Ints[i]
	case Float64:
		return math.Float64bits(a.Floats[i]) == math.Float64bits(b.Floats[i])
	case String:
		return a.Strings[i] == b.Strings[i]
	case Bool:
		return a.Bools[i] == b.Bools[i]
	}
	return false
}

func cell(c *Column, i int) string {
	switch c.Type {
	case Int64:
		return fmt.Sprint(c.Ints[i])
	case Float64:
		return fmt.Sprintf("%x", math.Float64bits(c.Floats[i]))
	case String:
		return fmt.Sprintf("%q", c.Strings[i])
	case Bool:
		return fmt.Sprint(c.Bools[i])
	}
	return "?"
}
