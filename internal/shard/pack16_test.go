package shard

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

func packParts(n int) ([]string, [][]byte) {
	var ids []string
	var gzs [][]byte
	for k := range n {
		gz := bytes.Repeat([]byte{byte(k), 0xff, '"', 0}, 3+k*7)
		ids, gzs = append(ids, ID(gz)), append(gzs, gz)
	}
	return ids, gzs
}

func TestPack16RoundTripsEveryPart(t *testing.T) {
	ids, gzs := packParts(5)
	script := Pack16(ids, gzs)
	if len(script) > Pack16MaxLen(len(ids), len(bytes.Join(gzs, nil))) {
		t.Fatalf("pack of %d bytes exceeds its bound", len(script))
	}
	gotIDs, gotGzs, err := OpenPack16(script)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(gotIDs, ",") != strings.Join(ids, ",") {
		t.Fatalf("ids %v, want %v", gotIDs, ids)
	}
	for k := range gzs {
		if !bytes.Equal(gotGzs[k], gzs[k]) {
			t.Fatalf("part %d differs", k)
		}
		one, err := OpenPackPart(script, ids[k])
		if err != nil || !bytes.Equal(one, gzs[k]) {
			t.Fatalf("OpenPackPart(%d): %v", k, err)
		}
	}
	if _, err := OpenPackPart(script, ID([]byte("absent"))); err == nil || !strings.Contains(err.Error(), "not in it") {
		t.Fatalf("an absent part: %v", err)
	}
	// A single dense envelope is a pack of one.
	if got, err := OpenPackPart(Envelope16(ids[2], gzs[2]), ids[2]); err != nil || !bytes.Equal(got, gzs[2]) {
		t.Fatalf("one envelope: %v", err)
	}
}

// A pack is the byte order mark, then each part's Envelope16 line after
// its mark, in order; a pack of one part is that part's Envelope16.
func TestPack16IsEnvelopeLines(t *testing.T) {
	ids, gzs := packParts(4)
	want := []byte(bom16)
	for k := range ids {
		want = append(want, Envelope16(ids[k], gzs[k])[len(bom16):]...)
	}
	if !bytes.Equal(Pack16(ids, gzs), want) {
		t.Error("Pack16 is not the parts' Envelope16 lines")
	}
	if !bytes.Equal(Pack16(ids[:1], gzs[:1]), Envelope16(ids[0], gzs[0])) {
		t.Error("a pack of one part is not its Envelope16")
	}
}

func TestOpenPack16RefusesDamage(t *testing.T) {
	ids, gzs := packParts(3)
	script := Pack16(ids, gzs)
	swapped := Pack16(ids, gzs)
	copy(swapped[len(bom16)+len(line16):], utf16le(ids[1])) // part 0 named as part 1
	for name, bad := range map[string][]byte{
		"no BOM":      script[len(bom16):],
		"truncated":   script[:len(script)-3],
		"empty":       []byte(bom16),
		"renamed":     swapped,
		"extra bytes": append(append([]byte{}, script...), 'x', 0),
	} {
		if _, _, err := OpenPack16(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzOpenPack16 feeds arbitrary scripts to the pack reader: whatever it
// accepts must write back to the same script.
func FuzzOpenPack16(f *testing.F) {
	ids, gzs := packParts(3)
	f.Add(Pack16(ids, gzs))
	f.Add(Envelope16(ids[0], gzs[0]))
	f.Fuzz(func(t *testing.T, script []byte) {
		defer fuzzlimit.Start(t)()
		ids, gzs, err := OpenPack16(script)
		if err != nil {
			return
		}
		if again := Pack16(ids, gzs); !bytes.Equal(again, script) {
			t.Fatalf("accepted a script Pack16 does not write")
		}
		if _, err := OpenPackPart(script, ids[len(ids)-1]); err != nil {
			t.Fatalf("OpenPackPart refuses what OpenPack16 accepts: %v", err)
		}
		// The index a reader of a few parts takes names the same parts,
		// each of which decodes to OpenPack16's payload.
		uids, units, err := Pack16Units(script)
		if err != nil || len(uids) != len(ids) {
			t.Fatalf("Pack16Units: %d parts, %v; OpenPack16 %d", len(uids), err, len(ids))
		}
		for k := range uids {
			gz, err := OpenPackUnits(uids[k], units[k])
			if err != nil || uids[k] != ids[k] || !bytes.Equal(gz, gzs[k]) {
				t.Fatalf("part %d by its units: %v", k, err)
			}
		}
	})
}
