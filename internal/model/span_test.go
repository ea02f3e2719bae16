package model

import "testing"

// One rule names roles for file names, log lines and spans alike.
func TestCanonicalRole(t *testing.T) {
	for in, want := range map[string]string{
		"aggregated": "agg", "Aggregated": "agg", "AGG": "agg", "Decode": "decode",
		"prefill": "prefill", "frontend": "frontend", "worker": "worker", "": "",
	} {
		if got := CanonicalRole(in); got != want {
			t.Errorf("CanonicalRole(%q) = %q, want %q", in, got, want)
		}
	}
}
