package heappeak

import "testing"

var keep [][]byte

// A function that holds 64 MB while it runs is seen to need at least that.
func TestDuringSeesWhatFHolds(t *testing.T) {
	got := During(func() {
		for range 64 {
			keep = append(keep, make([]byte, 1<<20))
		}
	})
	keep = nil
	if got < 60<<20 {
		t.Fatalf("peak %d bytes, want at least 60 MiB", got)
	}
}
