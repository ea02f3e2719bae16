package shard

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
)

// bigTable has enough rows for columnsAtOnce and a column of every kind,
// with nulls, dictionaries and UUIDs.
func bigTable() *Shard {
	const rows = parallelRows + 3
	ints := Column{Name: "i", Type: Int64, Ints: make([]int64, rows)}
	floats := Column{Name: "f", Type: Float64, Floats: make([]float64, rows), Valid: make([]bool, rows)}
	strs := Column{Name: "s", Type: String, Strings: make([]string, rows)}
	ids := Column{Name: "id", Type: String, Strings: make([]string, rows)}
	bools := Column{Name: "b", Type: Bool, Bools: make([]bool, rows)}
	for i := range rows {
		ints.Ints[i] = int64(i * 7)
		floats.Floats[i], floats.Valid[i] = float64(i)/3, i%5 != 0
		strs.Strings[i] = fmt.Sprintf("worker-%d", i%9)
		ids.Strings[i] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i*31)
		bools.Bools[i] = i%3 == 0
	}
	return &Shard{Kind: "core", Tables: []Table{
		{Name: "small", Rows: 1, Columns: []Column{{Name: "x", Type: Int64, Ints: []int64{1}}}},
		{Name: "big", Rows: rows, Columns: []Column{ints, floats, strs, ids, bools}},
	}}
}

// decodeOneCore is Decode as the page's single-threaded engine runs it.
func decodeOneCore(raw []byte) (*Shard, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	return Decode(raw)
}

func TestColumnsAtOnceDecodeAsOneByOne(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	raw, err := Encode(bigTable())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	want, err := decodeOneCore(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("columns decoded at once differ from one by one")
	}
	if !reflect.DeepEqual(got.Tables[1].Columns[3].Strings[:2], bigTable().Tables[1].Columns[3].Strings[:2]) {
		t.Fatalf("ids = %q", got.Tables[1].Columns[3].Strings[:2])
	}
}

// TestColumnsAtOnceFailAsOneByOne damages bytes all through the big
// table (with the checksum fixed so the decoder meets the damage): every
// error, or its absence, is the one-by-one decode's, word for word.
func TestColumnsAtOnceFailAsOneByOne(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	raw, err := Encode(bigTable())
	if err != nil {
		t.Fatal(err)
	}
	body := len(raw) - trailerBytes
	checked := 0
	// Every byte of the heads, then spots all through the payloads.
	var spots []int
	for at := headerFixedBytes; at < min(body, 120); at++ {
		spots = append(spots, at)
	}
	for k := 1; k <= 100; k++ {
		spots = append(spots, k*7919%body)
	}
	for _, at := range spots {
		for _, v := range []byte{0x00, 0xff} {
			bad := append([]byte(nil), raw...)
			if bad[at] == v {
				continue
			}
			bad[at] = v
			bad = withCRC(bad[:body])
			_, gotErr := Decode(bad)
			_, wantErr := decodeOneCore(bad)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("byte %d = %#x: decoded at once %v, one by one %v", at, v, gotErr, wantErr)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d damaged shards checked", checked)
	}
}
