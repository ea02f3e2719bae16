package sqlstore

import (
	"cmp"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// cpuDataset is nvtxDataset with CPU samples in two profiles listed out
// of id order: the second profile's samples out of time order, with
// samples a nanosecond apart whose stored seconds are equal and whose
// positions run against their nanoseconds, and a thread no range names.
func cpuDataset() *model.Dataset {
	d := nvtxDataset(2_000, 5)
	p0 := &d.Profiles[0]
	p0.CPU = &model.CPUSamples{PID: 7, Symbols: []string{"main", "step"}, Stacks: [][]int32{{1, 0}, {0}}}
	for k := range 500 {
		p0.CPU.Samples = append(p0.CPU.Samples, model.CPUSample{TimeNS: int64(k) * 1_000_000, GlobalTID: 7<<24 | int64(100+k%3), Stack: int32(k % 2), ID: int64(10_000 + k)})
	}
	// Far from the origin, 1 ns is below a float64's resolution in
	// seconds: both samples store the same time.
	const far = 1 << 62
	p1 := model.Profile{ID: 1, File: "q.sqlite", Worker: "prefill-0", EpochNS: 1_000_000_000_000,
		CPU: &model.CPUSamples{PID: 8, Symbols: []string{"x"}, Stacks: [][]int32{{0}}, Samples: []model.CPUSample{
			{TimeNS: 300, GlobalTID: 8<<24 | 1, ID: 3},
			{TimeNS: far + 1, GlobalTID: 8<<24 | 2, ID: 5},
			{TimeNS: far, GlobalTID: 8<<24 | 1, ID: 4},
			{TimeNS: 100, GlobalTID: 8<<24 | 9, ID: 1},
			{TimeNS: 200, GlobalTID: 8<<24 | 1, ID: 2},
		}}}
	d.Profiles = []model.Profile{p1, *p0}
	return d
}

// cpu_samples, laid out as a b-tree, reads as the plain definition gives
// it: every sample keyed (profile, time in seconds, position), each
// naming its thread's global id through nvtx_threads, and SQLite's own
// check passes.
func TestCPUSamplesReadInKeyOrder(t *testing.T) {
	d := cpuDataset()
	path := filepath.Join(t.TempDir(), "s.sqlite")
	st, err := Write(path, d)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	type row struct {
		profile, ordinal int
		time             float64
		s                model.CPUSample
	}
	var all []row
	for _, p := range d.Profiles {
		for k, s := range p.CPU.Samples {
			all = append(all, row{p.ID, k, float64(p.UTCNS(s.TimeNS)-d.Meta.OriginNS) / 1e9, s})
		}
	}
	slices.SortFunc(all, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.profile, b.profile), cmp.Compare(a.time, b.time), cmp.Compare(a.ordinal, b.ordinal))
	})
	for _, r := range all {
		want = append(want, fmt.Sprint(r.profile, r.time, r.ordinal, r.s.GlobalTID, r.s.Stack, r.s.ID))
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A table scan reads the b-tree in its stored order.
	got := readRows(t, db, `SELECT s.profile, s.time, s.ordinal, t.global_tid, s.stack, s.source_id
		FROM cpu_samples s LEFT JOIN nvtx_threads t ON t.profile = s.profile AND t.id = s.thread`, 6)
	if !slices.Equal(got, want) {
		t.Errorf("cpu_samples:\n%v\nwant\n%v", got, want)
	}
	if st.Rows["cpu_samples"] != int64(len(want)) {
		t.Errorf("counted %d cpu_samples rows, want %d", st.Rows["cpu_samples"], len(want))
	}
	// The two samples a nanosecond apart share their stored time.
	var same int
	if err := db.QueryRow(`SELECT count(*) FROM cpu_samples WHERE profile = 1 GROUP BY time ORDER BY count(*) DESC LIMIT 1`).Scan(&same); err != nil || same != 2 {
		t.Errorf("the tied samples are not tied in the table (%d, %v)", same, err)
	}
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check %q (%v)", ok, err)
	}
}
