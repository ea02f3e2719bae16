package jsonscan

import "testing"

// Every string StrBytes or a lenient Str rewrites with U+FFFD is counted,
// so that readers keeping such text can say how much they rewrote.
func TestReplacedCountsRewrittenStrings(t *testing.T) {
	var s Scanner
	for _, tc := range []struct {
		in     string
		strict bool
		want   int
	}{
		{`"plain"`, false, 0},
		{"\"bad\xff\"", false, 1},
		{`"lone \ud800"`, false, 1},
		{`"pair \ud83d\ude00"`, false, 0},
	} {
		s.Replaced = 0
		s.Reset([]byte(tc.in))
		if _, err := s.StrBytes(); err != nil {
			t.Fatal(err)
		}
		if s.Replaced != tc.want {
			t.Errorf("StrBytes(%q): replaced %d, want %d", tc.in, s.Replaced, tc.want)
		}
	}
	s.Replaced = 0
	s.Reset([]byte(`"lone \udc00"`))
	if _, err := s.Str(); err != nil || s.Replaced != 1 {
		t.Fatalf("Str: %v, replaced %d", err, s.Replaced)
	}
}
