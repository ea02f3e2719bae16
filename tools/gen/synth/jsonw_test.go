package synth

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", HostileMarkup, HostileQuotes, "tab\tnew\nline\r\x00\x1f", "back\\slash", "é✓😀", "bad\xffutf8"} {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("appendString(%q) = %s: %v", s, b, err)
			continue
		}
		if want := replaceInvalidBytes(s); got != want {
			t.Errorf("appendString(%q) round-trips to %q", s, got)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", HostileMarkup, HostileQuotes, "\x00\n\"\\", "é\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("appendString(%q) = %s: %v", s, b, err)
		}
		if want := replaceInvalidBytes(s); got != want {
			t.Fatalf("appendString(%q) round-trips to %q", s, got)
		}
	})
}

func TestAppendMSFromNS(t *testing.T) {
	check := func(ns int64) {
		t.Helper()
		want := appendFloat(nil, msFromNS(ns))
		if got := appendMSFromNS(nil, ns); !bytes.Equal(got, want) {
			t.Fatalf("appendMSFromNS(%d) = %s, want %s", ns, got, want)
		}
	}
	for _, ns := range []int64{0, 1, 999, 1e6, 136597878, 138469330, 139012120, 141183730, 1e12 + 7, 1e15 - 1, 1e15, 1<<62 + 3} {
		check(ns)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		check(rng.Int64N(int64(1) << (10 + rng.IntN(40))))
	}
}

// replaceInvalidBytes is what appendString promises: each byte that is not
// part of valid UTF-8 becomes U+FFFD.
func replaceInvalidBytes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // RuneError for an invalid byte
		i += size
	}
	return b.String()
}
