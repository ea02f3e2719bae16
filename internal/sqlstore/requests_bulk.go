package sqlstore

import (
	"cmp"
	"slices"
	"strings"

	"github.com/dsight/dsight/internal/model"
)

// requestsTable lays out requests (a rowid table: its ordinal is the
// rowid, so the rows arrive in order) and its three indexes as b-tree
// pages. Through SQLite each row cost an insert into the table and one
// into each index, which it keeps up to date since the indexes are
// declared with the tables (bulkIndexes).
func (w *writer) requestsTable(d *model.Dataset, bf *bulkFile) error {
	tree, err := bf.rowidTree("requests")
	if err != nil {
		return err
	}
	rec := bf.rowRecord() // ordered by rowid
	for i := range d.Requests {
		rec.reset()
		for _, v := range requestRow(i, &d.Requests[i]) {
			if err := rec.value(v); err != nil {
				return err
			}
		}
		if err := tree.add(int64(i), rec.bytes()); err != nil {
			return err
		}
	}
	if err := bf.doneRowid("requests", tree); err != nil {
		return err
	}
	order := make([]int, len(d.Requests))
	for i := range order {
		order[i] = i
	}
	key := bf.record()
	index := func(name string, cols int, less func(a, b *model.Request) int, put func(r *model.Request)) error {
		slices.SortFunc(order, func(a, b int) int {
			return cmp.Or(less(&d.Requests[a], &d.Requests[b]), cmp.Compare(a, b))
		})
		t, err := bf.indexTree(name, cols)
		if err != nil {
			return err
		}
		for _, i := range order {
			key.reset()
			put(&d.Requests[i])
			key.int(int64(i))
			if err := t.add(key); err != nil {
				return err
			}
		}
		return bf.doneIndex(name, t)
	}
	// The times compare as the REAL values stored (seconds), not as the
	// nanoseconds: two instants may round to one value.
	if err := index("requests_window", 3, func(a, b *model.Request) int {
		return cmp.Or(cmp.Compare(relSeconds(a.StartNS), relSeconds(b.StartNS)), cmp.Compare(relSeconds(a.EndNS), relSeconds(b.EndNS)))
	}, func(r *model.Request) { key.real(relSeconds(r.StartNS)); key.real(relSeconds(r.EndNS)) }); err != nil {
		return err
	}
	if err := index("requests_id", 2, func(a, b *model.Request) int { return strings.Compare(a.ID, b.ID) },
		func(r *model.Request) { key.text(r.ID) }); err != nil {
		return err
	}
	return index("requests_session", 3, func(a, b *model.Request) int {
		return cmp.Or(strings.Compare(a.Session, b.Session), cmp.Compare(relSeconds(a.StartNS), relSeconds(b.StartNS)))
	}, func(r *model.Request) { key.text(r.Session); key.real(relSeconds(r.StartNS)) })
}
