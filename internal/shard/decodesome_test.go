package shard

import (
	"errors"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// twoTables is a shard whose second table is the one a reader skips.
func twoTables() *Shard {
	s := exampleShard()
	big := benchShard(50).Tables[0]
	big.Name = "big"
	s.Tables = append(s.Tables, big)
	return s
}

func TestDecodeTablesKeepsOnlyTheTablesAsked(t *testing.T) {
	raw, err := Encode(twoTables())
	if err != nil {
		t.Fatal(err)
	}
	full, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	some, err := DecodeTables(raw, func(name string) bool { return name == "req" })
	if err != nil {
		t.Fatal(err)
	}
	if len(some.Tables) != 1 || some.Tables[0].Name != "req" || some.Kind != full.Kind {
		t.Fatalf("kept %+v", some.Tables)
	}
	if diff := shardDiff(&Shard{Kind: full.Kind, Tables: full.Tables[:1]}, some); diff != "" {
		t.Fatalf("kept table differs from Decode's: %s", diff)
	}
	all, err := DecodeTables(raw, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if diff := shardDiff(full, all); diff != "" {
		t.Fatalf("keeping every table differs from Decode: %s", diff)
	}
}

// A skipped table is still checked: the checksum covers it, and its
// column headers and payload lengths must hold together.
func TestDecodeTablesRefusesDamageInSkippedTables(t *testing.T) {
	raw, err := Encode(twoTables())
	if err != nil {
		t.Fatal(err)
	}
	keepReq := func(name string) bool { return name == "req" }
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)-20] ^= 1
	if _, err := DecodeTables(flipped, keepReq); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a flipped byte in a skipped table: %v, want ErrCorrupt", err)
	}
	body := raw[:len(raw)-trailerBytes]
	if _, err := DecodeTables(withCRC(body[:len(body)-1]), keepReq); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a skipped table cut short: %v, want ErrCorrupt", err)
	}
}

// FuzzDecodeTables checks that DecodeTables accepts exactly what Decode
// accepts (up to the decoded-size budget, which only kept tables spend)
// and never panics, whichever tables it keeps.
func FuzzDecodeTables(f *testing.F) {
	addShardSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		if len(data) < trailerBytes {
			return
		}
		raw := withCRC(data[:len(data)-trailerBytes])
		_, errSome := DecodeTables(raw, func(name string) bool { return len(name)%2 == 0 })
		_, errAll := decode(raw, fuzzBudget)
		if errAll == nil && errSome != nil {
			t.Fatalf("Decode accepts what DecodeTables refuses: %v", errSome)
		}
	})
}

// slowBase32768 is the unit-at-a-time decoder the grouped one must equal.
func slowBase32768(units []byte) []byte {
	var out []byte
	var acc uint32
	bits := 0
	for i := 0; i+1 < len(units); i += 2 {
		u := uint32(units[i]) | uint32(units[i+1])<<8
		if u >= tailBase {
			acc, bits = acc<<tailBits|(u-tailBase), bits+tailBits
		} else {
			acc, bits = acc<<unitBits|(u-unitBase), bits+unitBits
		}
		for bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>bits))
		}
		acc &= 1<<bits - 1
	}
	return out
}

// The grouped decoder (eight units, fifteen bytes at a time) gives the
// bytes of one unit at a time for every length around a group boundary,
// appends after what dst holds, and names a bad unit inside a group.
func TestBase32768GroupsDecodeAsUnits(t *testing.T) {
	payload := make([]byte, 200)
	for i := range payload {
		payload[i] = byte(i*151 + i>>3)
	}
	for n := 0; n <= len(payload); n++ {
		units := AppendBase32768(nil, payload[:n])
		got, err := AppendDecodeBase32768([]byte("x"), units)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if string(got[1:]) != string(payload[:n]) || string(got[1:]) != string(slowBase32768(units)) || got[0] != 'x' {
			t.Fatalf("%d bytes: decoded %x, want %x", n, got[1:], payload[:n])
		}
	}
	units := AppendBase32768(nil, payload[:100])
	for _, bad := range []uint16{0x2fff, 0xb000, 0x0041} {
		broken := append([]byte(nil), units...)
		broken[2*5], broken[2*5+1] = byte(bad), byte(bad>>8)
		if _, err := DecodeBase32768(broken); err == nil || !strings.Contains(err.Error(), "code unit 5 ") {
			t.Errorf("unit 5 = U+%04X: %v, want an error naming unit 5", bad, err)
		}
	}
}
