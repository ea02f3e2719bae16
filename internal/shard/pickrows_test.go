package shard

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// rowsOf is table t keeping only the rows keep, as a picking decode should
// decode it.
func rowsOf(t Table, keep []int) Table {
	out := Table{Name: t.Name, Rows: len(keep)}
	for _, c := range t.Columns {
		k := Column{Name: c.Name, Type: c.Type}
		if c.Valid != nil {
			k.Valid = make([]bool, len(keep))
		}
		switch c.Type {
		case Int64:
			k.Ints = make([]int64, len(keep))
		case Float64:
			k.Floats = make([]float64, len(keep))
		case String:
			k.Strings = make([]string, len(keep))
		case Bool:
			k.Bools = make([]bool, len(keep))
		}
		for j, i := range keep {
			if c.Valid != nil {
				k.Valid[j] = c.Valid[i]
			}
			switch c.Type {
			case Int64:
				k.Ints[j] = c.Ints[i]
			case Float64:
				k.Floats[j] = c.Floats[i]
			case String:
				k.Strings[j] = c.Strings[i]
			case Bool:
				k.Bools[j] = c.Bools[i]
			}
		}
		out.Columns = append(out.Columns, k)
	}
	return out
}

// pickTables is a request table of every column shape (nulls, constants,
// deltas, dictionaries of text and of UUIDs, a UUID list, bools, a column
// null throughout) and a table referring to its rows.
func pickTables() *Shard {
	const rows = 300
	cols := []Column{
		{Name: "id", Type: String, Strings: make([]string, rows)},
		{Name: "name", Type: String, Strings: make([]string, rows), Valid: make([]bool, rows)},
		{Name: "group", Type: String, Strings: make([]string, rows)},
		{Name: "start", Type: Int64, Ints: make([]int64, rows)},
		{Name: "turn", Type: Int64, Ints: make([]int64, rows), Valid: make([]bool, rows)},
		{Name: "const", Type: Int64, Ints: make([]int64, rows)},
		{Name: "ttft", Type: Float64, Floats: make([]float64, rows), Valid: make([]bool, rows)},
		{Name: "same", Type: Float64, Floats: make([]float64, rows)},
		{Name: "ok", Type: Bool, Bools: make([]bool, rows), Valid: make([]bool, rows)},
		{Name: "never", Type: String, Strings: make([]string, rows), Valid: make([]bool, rows)},
	}
	refs := Column{Name: "request", Type: Int64}
	texts := Column{Name: "text", Type: String}
	for i := range rows {
		cols[0].Strings[i] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i*13, i)
		cols[1].Strings[i], cols[1].Valid[i] = fmt.Sprintf("name %d", i), i%4 != 1
		cols[2].Strings[i] = fmt.Sprintf("%08x-1111-4000-8000-000000000000", i%7)
		cols[3].Ints[i] = int64(1000 + i*i)
		cols[4].Ints[i], cols[4].Valid[i] = int64(i%5), i%3 != 0
		cols[5].Ints[i] = 42
		cols[6].Floats[i], cols[6].Valid[i] = float64(i)/7, i%6 != 2
		cols[7].Floats[i] = 2.5
		cols[8].Bools[i], cols[8].Valid[i] = i%2 == 0, i%9 != 4
		if i%50 == 7 {
			for k := range 2 {
				refs.Ints = append(refs.Ints, int64(i))
				texts.Strings = append(texts.Strings, fmt.Sprintf("issue %d of %d", k, i))
			}
		}
	}
	return &Shard{Kind: "core", Tables: []Table{
		{Name: "req", Rows: rows, Columns: cols},
		{Name: "issues", Rows: len(refs.Ints), Columns: []Column{refs, texts}},
		{Name: "other", Rows: 1, Columns: []Column{{Name: "x", Type: Int64, Ints: []int64{1}}}},
	}}
}

func tableFrames(t testing.TB, raw []byte) [][]byte {
	t.Helper()
	spans, err := FrameSpans(raw)
	if err != nil {
		t.Fatal(err)
	}
	var frames [][]byte
	for _, sp := range spans[1 : len(spans)-1] {
		frames = append(frames, raw[sp.Start:sp.End])
	}
	return frames
}

// A picked table holds exactly the rows its key matches, each column's
// values and nulls as the whole decode has them, and a table picked by
// reference the rows naming them; a table not picked decodes whole.
func TestPickedRowsDecodeAsTheWholeTable(t *testing.T) {
	raw, err := Encode(pickTables())
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	frames := tableFrames(t, raw)
	for _, row := range []int{0, 7, 57, 101, 299} {
		id := whole.Tables[0].Columns[0].Strings[row]
		for _, key := range []string{"id", "name", "group"} {
			text := whole.Tables[0].Columns[0].Strings[row]
			switch key {
			case "name":
				text = fmt.Sprintf("name %d", row)
			case "group":
				text = fmt.Sprintf("%08x-1111-4000-8000-000000000000", row%7)
			}
			pick := func(table string) *RowPick {
				switch table {
				case "req":
					return &RowPick{Key: key, Text: text}
				case "issues":
					return &RowPick{Key: "request", Of: "req"}
				}
				return nil
			}
			tables, kept, err := DecodeTableFramesPicking(frames, 0, nil, pick)
			if err != nil {
				t.Fatalf("%s %q: %v", key, text, err)
			}
			var want []int
			for i, v := range whole.Tables[0].Columns[indexOf(whole.Tables[0], key)].Strings {
				if v == text && (key != "name" || whole.Tables[0].Columns[1].Valid[i]) {
					want = append(want, i)
				}
			}
			if key == "name" && row%4 == 1 {
				want = []int{} // a null row never matches
			}
			if !reflect.DeepEqual(kept[0], nonNilRows(want)) {
				t.Fatalf("%s %q: kept rows %v, want %v", key, text, kept[0], want)
			}
			if got := rowsOf(whole.Tables[0], want); !reflect.DeepEqual(tables[0], got) {
				t.Errorf("%s %q (row %d, id %s): picked\n%+v\nwant\n%+v", key, text, row, id, tables[0], got)
			}
			var refs []int
			for i, r := range whole.Tables[1].Columns[0].Ints {
				for _, w := range want {
					if int(r) == w {
						refs = append(refs, i)
					}
				}
			}
			if got := rowsOf(whole.Tables[1], nonNilRows(refs)); !reflect.DeepEqual(tables[1], got) || !reflect.DeepEqual(kept[1], nonNilRows(refs)) {
				t.Errorf("%s %q: the referring rows decode to %+v (kept %v), want %+v", key, text, tables[1], kept[1], got)
			}
			if kept[2] != nil || !reflect.DeepEqual(tables[2], whole.Tables[2]) {
				t.Errorf("the table not picked decodes to %+v", tables[2])
			}
		}
	}
	// An id no row holds, or not a UUID at all, keeps no row.
	for _, text := range []string{"00000000-0000-4000-8000-ffffffffffff", "no-such-id"} {
		tables, _, err := DecodeTableFramesPicking(frames, 0, nil, func(table string) *RowPick {
			if table == "req" {
				return &RowPick{Key: "id", Text: text}
			}
			return nil
		})
		if err != nil || tables[0].Rows != 0 || len(tables[0].Columns) != len(whole.Tables[0].Columns) {
			t.Errorf("%q: %d rows, %v", text, tables[0].Rows, err)
		}
	}
}

func indexOf(t Table, name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// A pick by a table not read before it, or by a column the table lacks,
// fails rather than keep nothing.
func TestPickNeedsItsKey(t *testing.T) {
	raw, err := Encode(pickTables())
	if err != nil {
		t.Fatal(err)
	}
	frames := tableFrames(t, raw)
	for name, p := range map[string]*RowPick{
		"later table": {Key: "request", Of: "issues"},
		"no column":   {Key: "nope", Text: "x"},
		"not string":  {Key: "start", Text: "x"},
	} {
		_, _, err := DecodeTableFramesPicking(frames, 0, nil, func(table string) *RowPick {
			if table == "req" {
				return p
			}
			return nil
		})
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// FuzzDecodeTableFramesPicking feeds arbitrary table frames to the picking
// decoder, keeping the rows whose first string column holds its first
// row's value: it never panics, and wherever the frame decodes whole it
// decodes to those rows of the whole table.
func FuzzDecodeTableFramesPicking(f *testing.F) {
	raw, err := Encode(pickTables())
	if err != nil {
		f.Fatal(err)
	}
	for _, fr := range tableFrames(f, raw) {
		f.Add(fr)
	}
	for _, s := range roundTripCases() {
		raw, err := Encode(s)
		if err != nil || len(raw) > 1024 {
			continue
		}
		_, frames := framesOf(f, raw)
		for _, fr := range frames[1 : len(frames)-1] {
			f.Add(fr)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		frames := [][]byte{data}
		whole, err := decodeTableFrames(frames, fuzzBudget)
		p := &RowPick{Key: "id", Text: "x"}
		key := -1
		if err == nil {
			for i, c := range whole[0].Columns {
				if c.Type == String && whole[0].Rows > 0 {
					p, key = &RowPick{Key: c.Name, Text: c.Strings[0]}, i
					break
				}
			}
		}
		got, kept, pickErr := DecodeTableFramesPicking(frames, 0, nil, func(string) *RowPick { return p })
		if key < 0 {
			return
		}
		if pickErr != nil {
			t.Fatalf("the frame decodes whole but not picking: %v", pickErr)
		}
		c := whole[0].Columns[key]
		want := []int{}
		for i, v := range c.Strings {
			if v == p.Text && (c.Valid == nil || c.Valid[i]) {
				want = append(want, i)
			}
		}
		if !reflect.DeepEqual(kept[0], want) {
			t.Fatalf("kept rows %v, want %v", kept[0], want)
		}
		if w := rowsOf(whole[0], want); !reflect.DeepEqual(got[0], w) {
			t.Fatalf("picked\n%+v\nwant\n%+v", got[0], w)
		}
	})
}

// Picking one row of a 100,000-row table stores that row's values only:
// what it allocates does not grow with the table (the whole decode of the
// same frame allocates megabytes).
func TestPickingOneRowAllocatesForThatRow(t *testing.T) {
	const rows = 100_000
	ids := Column{Name: "id", Type: String, Strings: make([]string, rows)}
	start := Column{Name: "start", Type: Int64, Ints: make([]int64, rows)}
	ttft := Column{Name: "ttft", Type: Float64, Floats: make([]float64, rows), Valid: make([]bool, rows)}
	status := Column{Name: "status", Type: String, Strings: make([]string, rows)}
	conv := Column{Name: "conversation", Type: String, Strings: make([]string, rows)}
	for i := range rows {
		ids.Strings[i] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i*31)
		start.Ints[i] = int64(i) * 1_000_003
		ttft.Floats[i], ttft.Valid[i] = float64(i%977)/3, i%11 != 0
		status.Strings[i] = []string{"completed", "error", "cancelled"}[i%3]
		conv.Strings[i] = fmt.Sprintf("conversation-%d", i/4)
	}
	raw, err := Encode(&Shard{Kind: "core", Tables: []Table{{Name: "requests", Rows: rows, Columns: []Column{ids, start, ttft, status, conv}}}})
	if err != nil {
		t.Fatal(err)
	}
	frames := tableFrames(t, raw)
	row := rows - 3
	pick := func(string) *RowPick { return &RowPick{Key: "id", Text: ids.Strings[row]} }
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	var tables []Table
	picked := allocated(func() {
		if tables, _, err = DecodeTableFramesPicking(frames, 0, nil, pick); err != nil {
			t.Fatal(err)
		}
	})
	whole := allocated(func() {
		if _, err = DecodeTableFramesSkipping(frames, 0, nil); err != nil {
			t.Fatal(err)
		}
	})
	if got := tables[0]; got.Rows != 1 || got.Columns[0].Strings[0] != ids.Strings[row] || got.Columns[1].Ints[0] != start.Ints[row] ||
		got.Columns[4].Strings[0] != conv.Strings[row] {
		t.Fatalf("picked %+v", got)
	}
	if picked > 64<<10 || whole < 4<<20 {
		t.Errorf("picking one row allocated %d bytes, the whole decode %d", picked, whole)
	}
}

// A pick of listed rows keeps those rows, and the rows referring to them;
// a row outside the table or out of order is refused.
func TestPickedListedRows(t *testing.T) {
	raw, err := Encode(pickTables())
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	frames := tableFrames(t, raw)
	pickOf := func(rows []int) PickRows {
		return func(table string) *RowPick {
			switch table {
			case "req":
				return &RowPick{Rows: rows}
			case "issues":
				return &RowPick{Key: "request", Of: "req"}
			}
			return nil
		}
	}
	rows := []int{3, 7, 57, 298, 299}
	tables, kept, err := DecodeTableFramesPicking(frames, 0, nil, pickOf(rows))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tables[0], rowsOf(whole.Tables[0], rows)) || !reflect.DeepEqual(kept[0], rows) {
		t.Errorf("listed rows decode to %+v", tables[0])
	}
	if want := rowsOf(whole.Tables[1], []int{0, 1, 2, 3}); !reflect.DeepEqual(tables[1], want) {
		t.Errorf("the rows referring to them decode to %+v, want %+v", tables[1], want)
	}
	for _, bad := range [][]int{{300}, {-1}, {5, 5}, {9, 3}} {
		if _, _, err := DecodeTableFramesPicking(frames, 0, nil, pickOf(bad)); err == nil {
			t.Errorf("rows %v: no error", bad)
		}
	}
}
