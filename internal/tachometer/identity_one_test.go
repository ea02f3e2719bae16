package tachometer

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// A column that tells identify its rows hold one code over a batch is
// packed once instead of row by row; the ids and identities must be those
// found without the hint, as codes and key widths grow batch by batch.
func TestIdentifyWithOneCodeColumns(t *testing.T) {
	const n = 3000
	hinted := newIdentityCoder(layout{identity: make([]string, 5)}, false)
	plain := newIdentityCoder(layout{identity: make([]string, 5)}, false)
	hinted.reserve(n)
	plain.reserve(n)
	rng := rand.New(rand.NewPCG(5, 8))
	gotIDs, wantIDs := make([]int32, n), make([]int32, n)
	for batch := range 40 {
		for k := range hinted.cols {
			h, p := hinted.cols[k], plain.cols[k]
			one := rng.IntN(3) > 0 // most columns hold one code a batch
			code := int32(rng.IntN(3 + batch*batch))
			for i := range n {
				c := code
				if !one {
					c = int32(rng.IntN(2 + batch))
				}
				h.rows[i], p.rows[i] = c, c
				for int(c) > len(h.texts) {
					h.texts, p.texts = append(h.texts, ""), append(p.texts, "")
				}
			}
			h.one, p.one = oneMixed, oneMixed
			if one {
				h.one = code
			}
		}
		hinted.identify(n, gotIDs)
		plain.identify(n, wantIDs)
		if !reflect.DeepEqual(gotIDs, wantIDs) {
			t.Fatalf("batch %d: ids differ", batch)
		}
	}
	if !reflect.DeepEqual(hinted.tuples, plain.tuples) || !hinted.packed {
		t.Fatalf("identities differ (%d, %d) or packing given up", len(hinted.tuples), len(plain.tuples))
	}
}
