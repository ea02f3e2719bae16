package trtllm

import (
	"bytes"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/logmetric"
)

// FuzzDecode: Decode never panics or hangs, fails only with ErrMalformed or
// an invalid timestamp, and every record it returns has an iteration, both
// ranks, a valid one-second timestamp and finite non-negative counters.
func FuzzDecode(f *testing.F) {
	for _, path := range fixtures(f) {
		in, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(in, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		defer fuzzlimit.Start(t)()
		type answer struct {
			it  Iteration
			ok  bool
			err error
		}
		var a answer
		a.it, a.ok, a.err = Decode(line)
		if a.err != nil {
			if a.ok || !errors.Is(a.err, ErrMalformed) && !errors.Is(a.err, logmetric.ErrInvalidStamp) {
				t.Fatalf("unexpected error %v (ok=%v)", a.err, a.ok)
			}
			return
		}
		if !a.ok {
			return
		}
		o := a.it.Obs
		if o.Iteration == nil || o.Rank == nil || o.LocalRank == nil || *o.Rank < 0 || o.LocalTime == "" || a.it.Stamp.FracDigits != 0 {
			t.Fatalf("bad record %+v", o)
		}
		if err := a.it.Stamp.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, v := range o.Ints {
			if v != nil && (*v < 0 || *v > 1<<53) {
				t.Fatalf("count %d", *v)
			}
		}
		for _, v := range o.Floats {
			if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0) {
				t.Fatalf("value %v", *v)
			}
		}
	})
}
