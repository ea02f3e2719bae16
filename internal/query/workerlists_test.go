package query

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
)

// The summary's worker count walks every request's stored worker list in
// place: its allocations do not grow with the requests (a split list per
// request was 100,000 allocations at 100,000 requests).
func TestWorkersWalkListsInPlace(t *testing.T) {
	lists := make([]string, 1000)
	for i := range lists {
		lists[i] = fmt.Sprintf("decode-%d\nprefill-%d", i%4, i%2)
	}
	lists[7] = ""
	e := &Engine{c: &catalog.Core{Server: catalog.Server{Workers: lists}}}
	if got := e.workers(); !reflect.DeepEqual(got, []string{"decode-0", "decode-1", "decode-2", "decode-3", "prefill-0", "prefill-1"}) {
		t.Fatalf("workers = %q", got)
	}
	if n := testing.AllocsPerRun(5, func() { e.workers() }); n > 50 {
		t.Errorf("workers over %d lists allocates %.0f times", len(lists), n)
	}
}
