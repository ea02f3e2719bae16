package jsonscan

import (
	"bytes"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// FuzzIntern checks that the cache in front of the intern table always
// returns the bytes asked for, whatever shares a slot: data is cut into
// strings at its NUL bytes and each is interned twice, in turn.
func FuzzIntern(f *testing.F) {
	f.Add([]byte("dynamo.lifecycle.schema\x00dynamo.lifecycle.profile\x00frontend\x00\x00decode\x00frontend"))
	f.Add([]byte("a\x00b\x00ab\x00ba\x00abcdefgh\x00abcdefghabcdefgh\x00hgfedcba"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		var n Scanner
		parts := bytes.Split(data, []byte{0})
		for round := 0; round < 2; round++ {
			for _, p := range parts {
				if got := n.Intern(p); got != string(p) {
					t.Fatalf("intern(%q) = %q", p, got)
				}
			}
		}
	})
}

func TestInternSlotsCollide(t *testing.T) {
	// Strings that share a slot take it in turn and still read back right.
	var n Scanner
	seen := map[uint][]string{}
	for i := 0; i < 5000; i++ {
		k := string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
		seen[internSlot([]byte(k))] = append(seen[internSlot([]byte(k))], k)
	}
	collided := false
	for _, ks := range seen {
		if len(ks) < 2 {
			continue
		}
		collided = true
		for i := 0; i < 3; i++ {
			for _, k := range ks {
				if got := n.Intern([]byte(k)); got != k {
					t.Fatalf("intern(%q) = %q", k, got)
				}
			}
		}
	}
	if !collided {
		t.Fatal("no two strings shared a slot")
	}
}
