package sqlstore

import (
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// EvidenceRows.Then, registered after each record a join hands over, runs
// once the request rows' goroutine (the last to read a record) has read
// it, and every one has run when the rows end; rows never begun read
// nothing, and run it at once.
func TestEvidenceRowsThenFollowsTheRowsGoroutine(t *testing.T) {
	idle := NewEvidenceRows(t.TempDir())
	ran := false
	idle.Then(func() { ran = true })
	if !ran {
		t.Fatal("rows never begun held a release")
	}

	d := tracedDataset(t)
	rows := NewEvidenceRows(t.TempDir())
	defer rows.Close()
	owner := evidenceOwners(d)
	type call struct{ mark, readAt int }
	calls := make(chan call, 1<<16)
	n := 0
	rows.BeginEvidence(d.Meta.OriginNS, d.Sources)
	if err := eachEvidence(d, func(k int, ev *model.RequestEvidence) error {
		rows.Evidence(k, owner[k], ev)
		mark := k + 1
		// Read inside f: the level when it ran (Finish runs what is left
		// at the level the rows reached, all of them).
		rows.Then(func() { calls <- call{mark, rows.rel.Level()} })
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rows.EndEvidence()
	<-rows.done
	close(calls)
	got := 0
	for c := range calls {
		got++
		if c.readAt < c.mark {
			t.Fatalf("a release for the first %d records ran when %d were read", c.mark, c.readAt)
		}
	}
	if n == 0 || got != n {
		t.Fatalf("%d releases ran of %d registered", got, n)
	}
	if read := rows.rel.Level(); read != n {
		t.Fatalf("the request rows' goroutine counted %d records read, of %d", read, n)
	}
}
