package sglang

import (
	"bytes"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/logmetric"
)

// FuzzDecode: Decode never panics, fails only on impossible timestamps, and
// every observation it returns is well formed: declared names, finite
// values, one phase label, unique label keys, DP as the only rank kind.
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
	declared := map[string]bool{}
	for _, d := range (Generator{}).Definitions() {
		declared[d.Name] = true
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		defer fuzzlimit.Start(t)()
		obs, ok, err := Generator{}.Decode(line)
		if err != nil {
			if !errors.Is(err, logmetric.ErrInvalidStamp) || ok {
				t.Fatalf("unexpected error %v (ok=%v)", err, ok)
			}
			return
		}
		if !ok {
			return
		}
		if len(obs.Values) == 0 {
			t.Fatal("observation without values")
		}
		if err := obs.Time.Validate(); err != nil || obs.Time.Zoned {
			t.Fatalf("time %v: %v", obs.Time, err)
		}
		seen := map[string]bool{}
		for _, v := range obs.Values {
			if !declared[v.Name] || seen[v.Name] || v.Null || math.IsNaN(v.Number) || math.IsInf(v.Number, 0) || v.Number < 0 {
				t.Fatalf("bad value %+v", v)
			}
			seen[v.Name] = true
		}
		keys := map[string]bool{}
		for _, l := range obs.Labels {
			if keys[l.Key] || l.Value == "" {
				t.Fatalf("bad labels %+v", obs.Labels)
			}
			keys[l.Key] = true
		}
		if !keys["phase"] || keys["dp"] {
			t.Fatalf("labels %+v: want a phase and no dp label", obs.Labels)
		}
		if obs.Rank.Kind != "" && obs.Rank.Kind != logmetric.RankKindDP {
			t.Fatalf("rank %v", obs.Rank)
		}
	})
}
