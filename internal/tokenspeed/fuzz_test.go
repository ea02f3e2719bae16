package tokenspeed

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
// every observation it returns is well formed: an attention TP rank, declared
// names, finite non-negative values, nulls only for the limit, a positive
// limit otherwise, and pages only as an active/pool pair.
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
		if len(obs.Values) == 0 || obs.Rank.Kind != logmetric.RankKindAttentionTP || obs.Rank.Index < 0 || len(obs.Labels) != 0 {
			t.Fatalf("bad observation %+v", obs)
		}
		if err := obs.Time.Validate(); err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, v := range obs.Values {
			if names[v.Name] {
				t.Fatalf("%s twice", v.Name)
			}
			names[v.Name] = true
			switch {
			case v.Null && v.Name != DecodeRequestLimit,
				!v.Null && (math.IsNaN(v.Number) || math.IsInf(v.Number, 0) || v.Number < 0),
				v.Name == DecodeRequestLimit && !v.Null && v.Number <= 0:
				t.Fatalf("bad value %+v", v)
			}
		}
		if names[ActiveKVPages] != names[KVPoolPages] || (names[DecodeRequestLimit] && len(names) != 1) {
			t.Fatalf("values do not come from one record: %+v", obs.Values)
		}
	})
}
