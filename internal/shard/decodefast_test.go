package shard

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The fast paths (decodefast.go) give back every value the general loops
// do: columns of each shape round-trip, with and without nulls, across the
// one-byte limits (127/128/129 dictionary entries, varints of 1..10 bytes).
func TestDecodeFastPathsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const rows = 3000
	var cols []Column
	for _, entries := range []int{1, 2, 127, 128, 129, 1000} {
		dict := make([]string, entries)
		for k := range dict {
			dict[k] = fmt.Sprintf("v%d", k)
		}
		for _, nulls := range []bool{false, true} {
			c := Column{Name: fmt.Sprintf("s%d_%v", entries, nulls), Type: String, Strings: make([]string, rows)}
			if nulls {
				c.Valid = make([]bool, rows)
			}
			for i := range rows {
				if nulls && r.IntN(4) == 0 {
					continue
				}
				if nulls {
					c.Valid[i] = true
				}
				c.Strings[i] = dict[(i*7+r.IntN(3))%entries]
			}
			cols = append(cols, c)
		}
	}
	ints := map[string]func(i int) int64{
		"small":     func(i int) int64 { return int64(r.IntN(60)) - 30 },
		"wide":      func(i int) int64 { return int64(r.Uint64()) },
		"rising":    func(i int) int64 { return 1_700_000_000_000_000_000 + int64(i)*1_000_003 },
		"negatives": func(i int) int64 { return -int64(r.IntN(1 << 40)) },
	}
	for name, f := range ints {
		for _, nulls := range []bool{false, true} {
			c := Column{Name: name + fmt.Sprint(nulls), Type: Int64, Ints: make([]int64, rows)}
			if nulls {
				c.Valid = make([]bool, rows)
			}
			for i := range rows {
				if nulls && r.IntN(3) == 0 {
					continue
				}
				if nulls {
					c.Valid[i] = true
				}
				c.Ints[i] = f(i)
			}
			cols = append(cols, c)
		}
	}
	for _, nulls := range []bool{false, true} {
		c := Column{Name: fmt.Sprint("b", nulls), Type: Bool, Bools: make([]bool, rows)}
		if nulls {
			c.Valid = make([]bool, rows)
		}
		for i := range rows {
			if nulls && r.IntN(5) == 0 {
				continue
			}
			if nulls {
				c.Valid[i] = true
			}
			c.Bools[i] = r.IntN(2) == 0
		}
		cols = append(cols, c)
	}
	s := &Shard{Kind: "k", Tables: []Table{{Name: "t", Rows: rows, Columns: cols}}}
	raw, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range cols {
		c := got.Tables[0].Columns[k]
		if !reflect.DeepEqual(c.Strings, want.Strings) || !reflect.DeepEqual(c.Ints, want.Ints) || !reflect.DeepEqual(c.Bools, want.Bools) || !reflect.DeepEqual(c.Valid, want.Valid) {
			t.Errorf("column %s does not round-trip", want.Name)
		}
	}
}

// A one-byte index past a small dictionary, in a column without nulls,
// is refused as the general loop refuses it: the fast path gives way.
func TestDenseIndexOutOfRange(t *testing.T) {
	c := Column{Name: "c", Type: String, Strings: []string{"a", "b", "a", "b"}}
	raw, err := Encode(&Shard{Kind: "k", Tables: []Table{{Name: "t", Rows: 4, Columns: []Column{c}}}})
	if err != nil {
		t.Fatal(err)
	}
	// The four index bytes (0 1 0 1) end the table, before the trailer.
	body := raw[:len(raw)-trailerBytes]
	at := len(body) - 2
	if body[at] != 0 || body[at+1] != 1 {
		t.Fatalf("unexpected layout % x", body[len(body)-6:])
	}
	bad := append([]byte(nil), body...)
	bad[at] = 5
	_, err = Decode(withCRC(bad))
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "dictionary index 5 out of range (2 entries)") {
		t.Fatalf("got %v", err)
	}
}

// formatUUID spells every byte value in every place as encoding/hex does.
func TestFormatUUIDEveryByte(t *testing.T) {
	for v := range 256 {
		var b [uuidBytes]byte
		for i := range b {
			b[i] = byte(v + i*37)
		}
		got := formatUUIDs(b[:], 1)[0]
		want := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
		if got != want {
			t.Fatalf("got %s want %s", got, want)
		}
	}
}

// expandBits gives each bit, and the count set, at every length around
// its eight-at-a-time step.
func TestExpandBits(t *testing.T) {
	b := []byte{0x01, 0x80, 0xff, 0x00, 0x5a, 0xa5, 0x3c, 0xc3, 0x81, 0x7e}
	for n := 0; n <= 8*len(b); n++ {
		out := make([]bool, n)
		set := expandBits(out, b)
		want := 0
		for i := range n {
			bit := b[i/8]>>(i%8)&1 == 1
			if out[i] != bit {
				t.Fatalf("n=%d bit %d: %v", n, i, out[i])
			}
			if bit {
				want++
			}
		}
		if set != want {
			t.Fatalf("n=%d: %d set, want %d", n, set, want)
		}
	}
}
