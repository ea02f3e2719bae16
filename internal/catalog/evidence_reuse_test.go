package catalog

import (
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
)

// RequestInto through one Reuse decodes each request as Request does,
// whatever was decoded into the storage before: requests with many spans
// and nested attributes, then fewer, then none, then again.
func TestRequestIntoIsRequest(t *testing.T) {
	reqs := append(everyField(), jointest.JoinWriteRun(t).Requests...)
	w := NewEvidenceWriter()
	for i := range reqs {
		w.AddRequest(&reqs[i])
	}
	c, err := DecodeEvidenceChunk(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var u Reuse
	var got model.RequestEvidence
	order := []int{}
	for i := range reqs {
		order = append(order, i, len(reqs)-1-i)
	}
	for _, i := range append(order, order...) {
		want, err := c.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.RequestInto(i, &got, &u); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, &got) {
			t.Fatalf("request %d:\n got %+v\nwant %+v", i, got, *want)
		}
	}
	if err := c.RequestInto(len(reqs), &got, &u); err == nil {
		t.Fatal("a slot past the chunk decoded")
	}
}
