package query

import (
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
)

// New's check of the stored id order: one comparison a row still tells a
// duplicate from an order that is not sorted.
func TestNewChecksIDOrder(t *testing.T) {
	open := func() *catalog.Core {
		c, err := catalog.Open(catalog.Encode(fixture()))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if _, err := New(open()); err != nil {
		t.Fatal(err)
	}
	c := open()
	c.Requests.ByID[1], c.Requests.ByID[2] = c.Requests.ByID[2], c.Requests.ByID[1]
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "request id order is not sorted") {
		t.Fatalf("swapped order: %v", err)
	}
	c = open()
	c.Requests.ByID[2] = c.Requests.ByID[1]
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "duplicate request id") {
		t.Fatalf("repeated row: %v", err)
	}
}
