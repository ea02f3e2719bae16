package query

import (
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
)

// SkippedColumns skips request columns only for the kinds that declare
// the ones they read, never those, and nothing once a worker is named.
func TestSkippedColumns(t *testing.T) {
	if SkippedColumns("requests", nil) != nil || SkippedColumns("workers", map[string]bool{"worker": true}) != nil {
		t.Fatal("a kind reading every column skips some")
	}
	skip := SkippedColumns("summary", map[string]bool{})
	for _, c := range engineColumns {
		if skip(catalog.TableRequests, c) {
			t.Errorf("summary skips %s, which New reads", c)
		}
	}
	if !skip(catalog.TableRequests, "id") || !skip(catalog.TableRequests, "status") || skip(catalog.TableSessions, "id") {
		t.Error("summary decodes the request ids or statuses, or skips the session ids")
	}
	if !skip(catalog.TableRequestServer, "server_ids") || skip(catalog.TableRequestServer, "workers") {
		t.Error("summary decodes the server ids, or skips the server workers")
	}
	if SkippedColumns("sessions", map[string]bool{"search": true})(catalog.TableRequestServer, "server_ids") {
		t.Error("a sessions search skips the server ids it searches")
	}
	if !skip(catalog.TableAgents, "id") || skip(catalog.TableAgents, "session") || SkippedColumns("sessions", nil)(catalog.TableAgents, "id") {
		t.Error("summary decodes the agent ids or skips their sessions, or a sessions page skips the agent ids it lists")
	}
}

// Requests whose ids were left undecoded are checked in start order
// alone, and named by index when out of it.
func TestCheckOrderWithoutIDs(t *testing.T) {
	r := &catalog.Requests{N: 3, Start: []int64{1, 1, 2}}
	if err := checkOrder(r); err != nil {
		t.Fatal(err)
	}
	r.Start = []int64{1, 3, 2}
	if err := checkOrder(r); err == nil || !strings.Contains(err.Error(), "at request 2") {
		t.Fatalf("out of order: %v", err)
	}
	r.ID = []string{"a", "c", "b"}
	r.Start = []int64{1, 2, 2}
	if err := checkOrder(r); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("ids out of order at one start: %v", err)
	}
}
