package sqlstore

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// A traced build holds a group a record and a key a binding from its
// import to the store's evidence tables, beside the report's render (1M
// and ~2M at 1M requests): they stay 32 and 12 bytes.
func TestEvidenceGroupsAndBindingKeysStaySmall(t *testing.T) {
	if n := unsafe.Sizeof(evGroup{}); n > 32 {
		t.Fatalf("an evidence group is %d bytes", n)
	}
	if n := unsafe.Sizeof(bindingKey{}); n > 12 {
		t.Fatalf("a binding key is %d bytes", n)
	}
}

// byOwner orders the groups as a stable sort by owner would, the spans
// no request owns last of the groups with none, without a copy of them.
func TestByOwnerIsAStableSortByOwner(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		p := &evidencePass{}
		owners := 1 + rng.IntN(20)
		for i := range rng.IntN(60) {
			owner := int32(rng.IntN(owners)) - 1
			if trial%5 == 0 {
				owner = -1
			}
			p.groups = append(p.groups, evGroup{owner: owner, firstSpan: int64(i)})
		}
		p.unowned = evGroup{owner: -1, firstSpan: int64(len(p.groups))}
		want := append(slices.Clone(p.groups), p.unowned)
		slices.SortStableFunc(want, func(a, b evGroup) int { return cmp.Compare(a.owner, b.owner) })
		var got []evGroup
		for _, i := range p.byOwner() {
			got = append(got, *p.group(i))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("byOwner gave %v, want %v", got, want)
		}
	}
}

// Rows the join has ended hold no group or binding key in memory: they
// are spilled until a store's indexes read them back, and each store made
// from the rows reads its own.
func TestEndedEvidenceRowsKeepTheirGroupsOnDisk(t *testing.T) {
	rows := NewEvidenceRows(t.TempDir())
	defer rows.Close()
	d := tracedDatasetTapped(t, rows)
	<-rows.done
	if rows.p.groups != nil || rows.p.bkeys != nil {
		t.Fatalf("ended rows hold %d groups and %d binding keys", len(rows.p.groups), len(rows.p.bkeys))
	}
	if rows.kept == nil || rows.kept.groups == 0 || rows.kept.keys == 0 {
		t.Fatalf("spilled: %+v", rows.kept)
	}
	groups, err := rows.kept.readGroups()
	if err != nil {
		t.Fatal(err)
	}
	if want := len(evidenceOwners(d)); len(groups) != want {
		t.Fatalf("%d groups read back, %d records", len(groups), want)
	}
	writeBoth(t, d, rows)
	writeBoth(t, d, rows)
	if rows.p.groups != nil || rows.p.bkeys != nil {
		t.Fatal("a store made from the rows left its groups or keys with them")
	}
}
