package logmetric

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

func FuzzParseStamp(f *testing.F) {
	for _, s := range []string{"2026-09-24 01:47:50.615", "2026-09-17 10:58:33,230", "2026-02-30 00:00:00", "9999-12-31 23:59:59.9"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		defer fuzzlimit.Start(t)()
		for _, sep := range []byte{'.', ','} {
			s, used := ParseStamp(b, sep)
			if used == 0 {
				continue
			}
			if used > len(b) || used < 19 {
				t.Fatalf("used %d of %d bytes", used, len(b))
			}
			ns, aligned, err := s.EpochNS(time.UTC)
			if err == nil && !aligned {
				t.Fatalf("UTC stamp not aligned")
			}
			if err == nil && s.Validate() != nil {
				t.Fatalf("EpochNS accepted an invalid stamp %s", s)
			}
			if err == nil && time.Unix(0, ns).UTC().Year() != s.Year {
				t.Fatalf("stamp %s normalised into %v", s, time.Unix(0, ns).UTC())
			}
		}
	})
}

func FuzzParseNumbers(f *testing.F) {
	for _, s := range []string{"0.19", "1e3", ".5", "4096", "1e999", "-1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		defer fuzzlimit.Start(t)()
		if v, ok := ParseDecimal(b); ok && (v < 0 || v != v) {
			t.Fatalf("ParseDecimal(%q) = %v", b, v)
		}
		if v, ok := ParseCount(b); ok && (v < 0 || v > maxExactCount || v != float64(uint64(v))) {
			t.Fatalf("ParseCount(%q) = %v", b, v)
		}
	})
}

// FuzzRead checks the reader's invariants on arbitrary input: no panic,
// evidence within the file, points in time order, references only to the
// same-named definition in exactly the same scope.
func FuzzRead(f *testing.F) {
	seed, err := os.ReadFile("testdata/reader.log")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	for _, l := range strings.Split(string(seed), "\n") {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		defer fuzzlimit.Start(t)()
		r, err := Read(bytes.NewReader(in), decodeSrc, time.UTC, newFake())
		if err != nil {
			if !strings.HasPrefix(err.Error(), decodeSrc.Path+":") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		for _, s := range r.Series {
			for i, p := range s.Points {
				if p.Line < 1 || p.Line > r.Lines {
					t.Fatalf("line %d outside 1..%d", p.Line, r.Lines)
				}
				if i > 0 && s.Points[i-1].TimeNS > p.TimeNS {
					t.Fatalf("points out of order")
				}
			}
			if s.Reference == nil || s.Reference.Series < 0 {
				continue
			}
			ref := r.Series[s.Reference.Series]
			if ref.Definition.Name != s.Definition.Reference || ref.Rank != s.Rank || ref.Process != s.Process ||
				formatLabels(ref.Labels) != formatLabels(s.Labels) {
				t.Fatalf("reference crosses scope: %+v -> %+v", s, ref)
			}
		}
	})
}
