package sqlstore

import (
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// What Then registers runs once the records handed over before it are
// read, in order, each once; once the rows end, at once.
func TestReleasesRunOnceTheirRecordsAreRead(t *testing.T) {
	var r releases
	var ran []string
	note := func(s string) func() { return func() { ran = append(ran, s) } }
	r.then(3, note("a"))
	r.then(5, note("b"))
	r.then(5, note("c"))
	r.add(2)
	if len(ran) != 0 {
		t.Fatalf("ran %v after 2 records", ran)
	}
	r.add(1)
	if !slices.Equal(ran, []string{"a"}) {
		t.Fatalf("ran %v after 3 records", ran)
	}
	r.add(4)
	if !slices.Equal(ran, []string{"a", "b", "c"}) {
		t.Fatalf("ran %v after 7 records", ran)
	}
	r.then(6, note("d")) // already read
	r.then(9, note("e"))
	if !slices.Equal(ran, []string{"a", "b", "c", "d"}) {
		t.Fatalf("ran %v", ran)
	}
	r.finish()
	r.then(100, note("f"))
	if !slices.Equal(ran, []string{"a", "b", "c", "d", "e", "f"}) {
		t.Fatalf("ran %v after finish", ran)
	}
}

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
		rows.Then(func() {
			rows.rel.mu.Lock()
			read := rows.rel.done
			if rows.rel.all {
				read = mark
			}
			rows.rel.mu.Unlock()
			calls <- call{mark, read}
		})
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
	if rows.rel.done != n {
		t.Fatalf("the request rows' goroutine counted %d records read, of %d", rows.rel.done, n)
	}
}
