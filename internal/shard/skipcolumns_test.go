package shard

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// withoutColumns is s with the columns skip names left out, as a reader
// skipping them should decode it.
func withoutColumns(s *Shard, skip SkipColumn) *Shard {
	out := &Shard{Kind: s.Kind}
	for _, t := range s.Tables {
		kept := Table{Name: t.Name, Rows: t.Rows, Columns: []Column{}}
		for _, c := range t.Columns {
			if !skip(t.Name, c.Name) {
				kept.Columns = append(kept.Columns, c)
			}
		}
		out.Tables = append(out.Tables, kept)
	}
	return out
}

// A skipped column is left out of its table, on one core and on several
// (a big table's columns are decoded at once), framed or whole; the
// others decode as Decode decodes them.
func TestSkippedColumnsAreLeftOut(t *testing.T) {
	raw, err := Encode(bigTable())
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	skip := func(table, column string) bool {
		return table == "big" && (column == "id" || column == "s" || column == "b")
	}
	want := withoutColumns(whole, skip)
	spans, err := FrameSpans(raw)
	if err != nil {
		t.Fatal(err)
	}
	var frames [][]byte
	for _, sp := range spans[1 : len(spans)-1] {
		frames = append(frames, raw[sp.Start:sp.End])
	}
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		got, err := DecodeTablesSkipping(raw, nil, skip)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GOMAXPROCS %d: the whole shard decodes skipping to a different shard", procs)
		}
		tables, err := DecodeTableFramesSkipping(frames, 0, skip)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tables, want.Tables) {
			t.Errorf("GOMAXPROCS %d: the frames decode skipping to different tables", procs)
		}
		runtime.GOMAXPROCS(old)
	}
	if got := want.Tables[1].Columns; len(got) != 2 || got[0].Name != "i" || got[1].Name != "f" {
		t.Fatalf("kept columns %v", got)
	}
}

// A skipped column's header is checked still: an unknown type is refused
// as Decode refuses it.
func TestSkippedColumnHeaderIsChecked(t *testing.T) {
	s := &Shard{Kind: "core", Tables: []Table{{Name: "t", Rows: 1, Columns: []Column{
		{Name: "a", Type: Int64, Ints: []int64{1}}, {Name: "b", Type: Int64, Ints: []int64{2}},
	}}}}
	raw, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	spans, err := FrameSpans(raw)
	if err != nil {
		t.Fatal(err)
	}
	frame := append([]byte{}, raw[spans[1].Start:spans[1].End]...)
	// The frame ends with column b: name length, "b", type, encoding, ...
	at := len(frame) - 1
	for frame[at] != 'b' || frame[at-1] != 1 {
		at--
	}
	frame[at+1] = 0xee
	_, want := DecodeTableFrames([][]byte{frame}, 0)
	_, got := DecodeTableFramesSkipping([][]byte{frame}, 0, func(_, c string) bool { return c == "b" })
	if !errors.Is(got, ErrCorrupt) || want == nil || got.Error() != want.Error() {
		t.Fatalf("skipping a column with an unknown type: %v, decoding it: %v", got, want)
	}
}

// FuzzDecodeTableFramesSkipping feeds arbitrary table frames to the
// skipping decoder, skipping the columns whose name starts with the
// input's first byte's letter: it never panics, and wherever every column
// decodes it decodes to the same tables less the skipped columns.
func FuzzDecodeTableFramesSkipping(f *testing.F) {
	for _, s := range roundTripCases() {
		raw, err := Encode(s)
		if err != nil {
			f.Fatal(err)
		}
		if len(raw) > 1024 {
			continue
		}
		_, frames := framesOf(f, raw)
		for _, fr := range frames[1 : len(frames)-1] {
			f.Add(append([]byte{'a'}, fr...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		if len(data) == 0 {
			return
		}
		first, frames := data[0], [][]byte{data[1:]}
		skip := func(_, column string) bool { return column[0] == first }
		got, skipErr := decodeTableFramesSkipping(frames, fuzzBudget, skip)
		whole, err := decodeTableFrames(frames, fuzzBudget)
		if err != nil {
			return
		}
		if skipErr != nil {
			t.Fatalf("the frames decode whole but not skipping: %v", skipErr)
		}
		want := withoutColumns(&Shard{Kind: "k", Tables: whole}, skip)
		if diff := shardDiff(want, &Shard{Kind: "k", Tables: got}); diff != "" {
			t.Fatalf("skipping decodes differently: %s", diff)
		}
	})
}
