package shard

import (
	"reflect"
	"strconv"
	"testing"
)

// Columns longer than a decode chunk come back whole: delta sums carried
// across chunks, nulls at and around the chunk edges, dictionary strings,
// UUIDs and bools; and a bad index in a later chunk is refused.
func TestDecodeAcrossChunks(t *testing.T) {
	rows := 3*decodeChunkRows + 17
	valid := make([]bool, rows)
	ints, sorted := make([]int64, rows), make([]int64, rows)
	strs, ids, bools := make([]string, rows), make([]string, rows), make([]bool, rows)
	for i := range rows {
		valid[i] = i%decodeChunkRows != 0 && i%7 != 3
		sorted[i] = int64(i) * 1000
		if valid[i] {
			ints[i] = int64(i*i) - 5000
			strs[i] = "s" + strconv.Itoa(i%97)
			ids[i] = "0123abcd-0000-4000-8000-" + strconv.FormatInt(1e11+int64(i), 10)
			bools[i] = i%3 == 0
		}
	}
	s := &Shard{Kind: "t", Tables: []Table{{Name: "t", Rows: rows, Columns: []Column{
		{Name: "sorted", Type: Int64, Ints: sorted},
		{Name: "ints", Type: Int64, Ints: ints, Valid: valid},
		{Name: "strs", Type: String, Strings: strs, Valid: valid},
		{Name: "ids", Type: String, Strings: ids, Valid: valid},
		{Name: "bools", Type: Bool, Bools: bools, Valid: valid},
	}}}}
	raw, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range s.Tables[0].Columns {
		c := got.Tables[0].Columns[k]
		if !reflect.DeepEqual(c.Ints, want.Ints) || !reflect.DeepEqual(c.Strings, want.Strings) || !reflect.DeepEqual(c.Bools, want.Bools) {
			t.Errorf("column %s differs after decoding", want.Name)
		}
	}
}
