package pyramid

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/shard"
)

type evPoint struct {
	t       int64
	v       float64
	null    bool
	src, ln int64
}

func buildFrom(t *testing.T, temporal Temporal, pts []evPoint) *Pyramid {
	t.Helper()
	b, err := NewBuilder(Options{Temporal: temporal, Evidence: true, ChunkRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if err := b.AddFrom(p.t, p.v, p.null, p.src, p.ln); err != nil {
			t.Fatal(err)
		}
	}
	return b.Finish()
}

// Two different limits recorded at one time both survive in a Setting
// series, with their evidence, through a shard round trip: RowsAt answers
// each distinct point (identical duplicates once, a null once) where the
// row stays a gap, so statistics, plots and the held value are unchanged.
func TestSettingConflictsSurvive(t *testing.T) {
	pts := []evPoint{
		{10, 8, false, 4, 7}, {10, 16, false, 4, 8}, {10, 8, false, 5, 1}, // a conflict, 8 twice
		{20, 5, false, 4, 9}, {20, 5, false, 4, 10}, // identical: one row, no conflict
		{30, 6, false, 4, 11}, {30, 0, true, 4, 12}, {30, math.NaN(), false, 4, 13}, // a value and a null
		{40, 7, false, 4, 14},
	}
	p := buildFrom(t, Setting, pts)
	raw, err := p.EncodeShard()
	if err != nil {
		t.Fatal(err)
	}
	q, err := DecodeShard(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64][]Row{
		10: {{T: 10, V: 8, Valid: true, Source: 4, Line: 7}, {T: 10, V: 16, Valid: true, Source: 4, Line: 8}},
		20: {{T: 20, V: 5, Valid: true, Source: 4, Line: 9}},
		30: {{T: 30, V: 6, Valid: true, Source: 4, Line: 11}, {T: 30, Valid: false, Source: 4, Line: 12}},
		40: {{T: 40, V: 7, Valid: true, Source: 4, Line: 14}},
	}
	for _, pyr := range []*Pyramid{p, q} {
		for ts, w := range want {
			got, err := pyr.RowsAt(ts)
			if err != nil || !reflect.DeepEqual(got, w) {
				t.Errorf("rows at %d = %+v (%v), want %+v", ts, got, err, w)
			}
		}
		// The rows themselves are unchanged: gaps at 10 and 30.
		st, _, err := pyr.Stats(0, 100)
		if err != nil || st.Count != 2 || st.Gaps != 2 || pyr.Rows() != 4 {
			t.Errorf("stats %+v rows %d (%v), want 2 samples and 2 gaps in 4 rows", st, pyr.Rows(), err)
		}
		row, valid, found, err := pyr.LastAtOrBefore(15)
		if err != nil || !found || valid || row.T != 10 {
			t.Errorf("held at 15: %+v valid %v found %v (%v), want the gap at 10", row, valid, found, err)
		}
	}
	if got := q.Conflicts(); len(got) != 4 {
		t.Errorf("conflicts %+v, want 4 points", got)
	}
	// A Sample series with the same points keeps none: its gap is all.
	s := buildFrom(t, Sample, pts)
	if rows, _ := s.RowsAt(10); len(rows) != 1 || rows[0].Valid || len(s.Conflicts()) != 0 {
		t.Errorf("sample rows at 10 = %+v, conflicts %v", rows, s.Conflicts())
	}
	if lay, _ := s.Tables(); lay.Conflicts != nil {
		t.Error("a sample series lays out a conflicts table")
	}
}

// A Setting series without a conflict lays out exactly as before: no
// conflicts table, and the same bytes as a Sample series of the same rows
// except for the header's temporal.
func TestSettingWithoutConflictsLayout(t *testing.T) {
	pts := []evPoint{{10, 8, false, 1, 1}, {10, 8, false, 1, 2}, {20, 0, true, 1, 3}, {30, 4, false, 1, 4}}
	p := buildFrom(t, Setting, pts)
	lay, err := p.Tables()
	if err != nil || lay.Conflicts != nil {
		t.Fatalf("conflicts table %v (%v)", lay.Conflicts, err)
	}
	raw, _ := p.EncodeShard()
	s, _ := shard.Decode(raw)
	if len(s.Tables) != 2+p.ChunkCount() {
		t.Errorf("%d tables, want header, index and %d chunks", len(s.Tables), p.ChunkCount())
	}
}

// A damaged conflicts table is refused: a single point, times going back,
// a conflict on a valid row, or one in a non-setting series.
func TestConflictsTableChecked(t *testing.T) {
	p := buildFrom(t, Setting, []evPoint{{10, 8, false, 1, 1}, {10, 16, false, 1, 2}, {20, 5, false, 1, 3}})
	lay, err := p.Tables()
	if err != nil || lay.Conflicts == nil {
		t.Fatal("no conflicts table", err)
	}
	encode := func(hdr shard.Table, c shard.Table) []byte {
		tables := append([]shard.Table{hdr, lay.Index}, lay.Chunks...)
		raw, err := shard.Encode(&shard.Shard{Kind: ShardKind, Tables: append(tables, c)})
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	if _, err := DecodeShard(encode(lay.Header, *lay.Conflicts)); err != nil {
		t.Fatalf("the intact table is refused: %v", err)
	}
	clone := func(f func(c *shard.Table)) shard.Table {
		c := *lay.Conflicts
		c.Columns = append([]shard.Column(nil), c.Columns...)
		for i := range c.Columns {
			c.Columns[i].Ints = append([]int64(nil), c.Columns[i].Ints...)
		}
		f(&c)
		return c
	}
	cases := map[string]shard.Table{
		"single point": clone(func(c *shard.Table) { c.Columns[0].Ints[1] = 15 }),
		"on a valid row": clone(func(c *shard.Table) {
			c.Columns[0].Ints[0], c.Columns[0].Ints[1] = 20, 20
		}),
		"back in time": clone(func(c *shard.Table) { c.Columns[0].Ints[0] = 12 }),
	}
	for name, c := range cases {
		if _, err := DecodeShard(encode(lay.Header, c)); !errors.Is(err, ErrLayout) {
			t.Errorf("%s: %v, want a layout error", name, err)
		}
	}
	sample := lay.Header
	sample.Columns = append([]shard.Column(nil), sample.Columns...)
	sample.Columns[1] = intCol("temporal", int64(Sample))
	if _, err := DecodeShard(encode(sample, *lay.Conflicts)); !errors.Is(err, ErrLayout) {
		t.Errorf("sample series with conflicts: %v", err)
	}
	if bytes.Equal(encode(lay.Header, *lay.Conflicts), nil) {
		t.Fatal("unreachable")
	}
}
