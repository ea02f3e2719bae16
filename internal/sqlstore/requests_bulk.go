package sqlstore

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/dsight/dsight/internal/model"
)

// requestsTable lays out requests (a rowid table: its ordinal is the
// rowid, so the rows arrive in order) and its three indexes as b-tree
// pages. Through SQLite each row cost an insert into the table and one
// into each index, which it keeps up to date since the indexes are
// declared with the tables (bulkIndexes). The indexes' orders are sorted
// on a goroutine of their own while the table's rows are laid out: the
// sorts were most of the store of a run with no server evidence. They are
// sorted one after the other: at 1M requests each sort's keys are 24–32
// MB, and the three at once were 92 MB beside the report's render of the
// core, at the build's highest live heap.
func (w *writer) requestsTable(d *model.Dataset, bf *bulkFile) error {
	rs := d.Requests
	// The times compare as the REAL values stored (seconds), not as the
	// nanoseconds: two instants may round to one value.
	window := sortLater(nil, len(rs), func(i int) windowKey {
		return windowKey{relSeconds(rs[i].StartNS), relSeconds(rs[i].EndNS)}
	}, func(a, b windowKey) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end)) })
	byID := sortLater(window, len(rs), func(i int) string { return rs[i].ID }, strings.Compare)
	session := sortLater(byID, len(rs), func(i int) sessionKey {
		return sessionKey{rs[i].Session, relSeconds(rs[i].StartNS)}
	}, func(a, b sessionKey) int {
		return cmp.Or(strings.Compare(a.session, b.session), cmp.Compare(a.start, b.start))
	})

	tree, err := bf.rowidTree("requests")
	if err != nil {
		return err
	}
	rec := bf.rowRecord() // ordered by rowid
	for i := range rs {
		rec.reset()
		for _, v := range requestRow(i, &rs[i]) {
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
	key := bf.record()
	index := func(name string, cols int, order []int32, put func(r *model.Request)) error {
		t, err := bf.indexTree(name, cols)
		if err != nil {
			return err
		}
		for _, i := range order {
			key.reset()
			put(&rs[i])
			key.int(int64(i))
			if err := t.add(key); err != nil {
				return err
			}
		}
		return bf.doneIndex(name, t)
	}
	if err := index("requests_window", 3, window(), func(r *model.Request) {
		key.real(relSeconds(r.StartNS))
		key.real(relSeconds(r.EndNS))
	}); err != nil {
		return err
	}
	if err := index("requests_id", 2, byID(), func(r *model.Request) { key.text(r.ID) }); err != nil {
		return err
	}
	return index("requests_session", 3, session(), func(r *model.Request) {
		key.text(r.Session)
		key.real(relSeconds(r.StartNS))
	})
}

type windowKey struct{ start, end float64 }

type sessionKey struct {
	session string
	start   float64
}

// sortLater starts sorting the positions 0..n-1 by their keys, ties by
// position, on a goroutine of its own once after (when not nil) has given
// its order, and returns what waits for the order. Each key is taken
// once, beside its position: a comparison then reads one slice rather
// than two rows.
func sortLater[K any](after func() []int32, n int, key func(i int) K, compare func(a, b K) int) func() []int32 {
	type keyed struct {
		k K
		i int32
	}
	done := make(chan []int32, 1)
	go func() {
		if after != nil {
			after()
		}
		ks := make([]keyed, n)
		for i := range ks {
			ks[i] = keyed{key(i), int32(i)}
		}
		slices.SortFunc(ks, func(a, b keyed) int { return cmp.Or(compare(a.k, b.k), cmp.Compare(a.i, b.i)) })
		order := make([]int32, n)
		for j := range ks {
			order[j] = ks[j].i
		}
		done <- order
	}()
	return sync.OnceValue(func() []int32 { return <-done })
}
