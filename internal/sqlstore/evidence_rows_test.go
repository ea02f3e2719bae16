package sqlstore

import (
	"bufio"
	"io"
	"os"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// The request rows of a traced run (a 100k-request run has ~1M lifecycle
// stages) are encoded without boxing each value and derived in reused
// buffers, with the activity labels of the recorded roles built once: a
// stage or binding costs ~5 allocations (the derivation's milestones and
// the stages' own pointers), not a lifecycle's slices and texts and an
// interface per value (19.5 before, 7.4 with the labels built per span).
func TestRequestRowsAllocateLittle(t *testing.T) {
	d := tracedDataset(t)
	var evs []*model.RequestEvidence
	if err := eachEvidence(d, func(k int, ev *model.RequestEvidence) error {
		evs = append(evs, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	spill, err := os.CreateTemp(t.TempDir(), "rows")
	if err != nil {
		t.Fatal(err)
	}
	defer spill.Close()
	w := &writer{origin: d.Meta.OriginNS, sourceIDs: map[string]int{}}
	for _, s := range d.Sources {
		w.sourceIDs[s.Path] = s.ID
	}
	p := &evidencePass{w: w, spill: spill, out: bufio.NewWriterSize(io.Discard, 1<<20), intSmall: true}
	r := &requestRows{p: p}
	owner := evidenceOwners(d)
	row := &record{intSmall: true, valuesOnly: true}
	addAll := func() {
		for k, ev := range evs {
			if err := r.add(row, owner[k], ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	addAll() // the buffers grow once
	before := len(r.groups)
	var rows int
	for _, g := range r.groups[:before] {
		rows += g.stages + g.binds
	}
	if rows < 1000 {
		t.Fatalf("only %d request rows", rows)
	}
	p.bkeys = make([]bindingKey, 0, 2*len(p.bkeys))
	r.groups = make([]rowGroup, 0, 2*before)
	allocs := testing.AllocsPerRun(1, func() {
		p.bkeys = p.bkeys[:0]
		r.groups = r.groups[:0]
		addAll()
	})
	t.Logf("%d records, %d rows: %.0f allocations, %.2f a row", len(evs), rows, allocs, allocs/float64(rows))
	if allocs > 6.5*float64(rows) {
		t.Fatalf("%.0f allocations for %d rows", allocs, rows)
	}
}
