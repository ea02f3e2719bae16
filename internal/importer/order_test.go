package importer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// align puts each request at the place ordinals gave it before the join,
// which is the order by start, then id: ties on start, runs already in
// order and runs reversed all land where a sort would put them.
func TestRequestsPlacedAtTheirOrdinals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 7, 1000} {
		requests := make([]model.Request, n)
		for i, k := range rng.Perm(n) { // ids unique, in no order
			requests[i] = model.Request{ID: fmt.Sprintf("r%05d", k), StartNS: int64(rng.IntN(n/3 + 1))}
		}
		if n > 4 {
			requests[1].StartNS, requests[2].StartNS = requests[0].StartNS, requests[0].StartNS
		}
		order := ordinals(requests)
		held := append([]int(nil), order...)
		ids := make([]string, n)
		for i, r := range requests {
			ids[order[i]] = r.ID
		}
		placeAt(requests, order)
		for o := range requests {
			if requests[o].ID != ids[o] {
				t.Fatalf("n=%d: place %d holds %s, its ordinal named %s", n, o, requests[o].ID, ids[o])
			}
			if o > 0 && requestOrder(&requests[o-1], &requests[o]) >= 0 {
				t.Fatalf("n=%d: %s (%d) before %s (%d)", n, requests[o-1].ID, requests[o-1].StartNS, requests[o].ID, requests[o].StartNS)
			}
		}
		for i := range order {
			if order[i] != held[i] {
				t.Fatalf("n=%d: placing the requests changed the ordinals the join was given", n)
			}
		}
	}
}
