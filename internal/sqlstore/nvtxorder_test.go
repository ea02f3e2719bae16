package sqlstore

import (
	"cmp"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// wantNVTX is the NVTX tables as the plain definition gives them: every
// range's key (profile, bucket, start, source_row) by a general sort,
// threads numbered in listed order, then as ranges in key order name them,
// and each class's longest duration. Rows are formatted as sqlite3 prints
// them with %v.
func wantNVTX(d *model.Dataset) (ranges, threads, durations []string) {
	origin := d.Meta.OriginNS
	sec := func(p *model.Profile, t int64) float64 { return float64(p.UTCNS(t)-origin) / 1e9 }
	type row struct {
		profile, bucket int
		start, end      float64
		r               model.NVTXRange
	}
	var rows []row
	number := map[int]map[int64]int{}
	name := func(p *model.Profile, g int64, label any) {
		if _, ok := number[p.ID][g]; !ok {
			number[p.ID][g] = len(number[p.ID])
			threads = append(threads, fmt.Sprint(p.ID, number[p.ID][g], g, model.PID(g), model.TID(g), label))
		}
	}
	ps := slices.Clone(d.Profiles)
	slices.SortStableFunc(ps, func(a, b model.Profile) int { return cmp.Compare(a.ID, b.ID) })
	for i := range ps {
		p := &ps[i]
		number[p.ID] = map[int64]int{}
		for _, th := range p.Threads {
			var label any = "<nil>"
			if th.Name != nil {
				label = *th.Name
			}
			name(p, th.GlobalTID, label)
		}
		longest := map[int]float64{}
		first := len(rows)
		for _, r := range p.Ranges {
			s, e := sec(p, r.StartNS), sec(p, r.EndNS)
			b := DurationBucket(e - s)
			longest[b] = max(longest[b], e-s)
			rows = append(rows, row{p.ID, b, s, e, r})
		}
		slices.SortFunc(rows[first:], func(a, b row) int {
			return cmp.Or(cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.start, b.start), cmp.Compare(a.r.RowID, b.r.RowID))
		})
		for _, x := range rows[first:] {
			name(p, x.r.GlobalTID, "<nil>")
			ranges = append(ranges, fmt.Sprint(x.profile, x.bucket, x.start, x.end, x.r.Name, number[p.ID][x.r.GlobalTID], x.r.RowID))
		}
		for _, b := range sortedKeys(longest) {
			durations = append(durations, fmt.Sprint(p.ID, b, longest[b]))
		}
	}
	return ranges, threads, durations
}

func readRows(t *testing.T, db *sql.DB, q string, cols int) []string {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		v := make([]any, cols)
		ptr := make([]any, cols)
		for i := range v {
			ptr[i] = &v[i]
		}
		if err := rs.Scan(ptr...); err != nil {
			t.Fatal(err)
		}
		for i, x := range v {
			if x == nil {
				v[i] = "<nil>"
			}
		}
		out = append(out, fmt.Sprint(v...))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The key order built from the ranges' own order (a counting pass per
// duration class, rowid order only within runs of equal start) gives the
// rows, thread numbers and class maxima a general sort gives: with
// repeated starts whose end order reverses their rowids, threads the
// profile does not list, profiles listed out of id order, a profile whose
// ranges are not in start order, and empty ones. The table scan reads
// the b-tree in key order, so the file's order is compared too.
func TestNVTXKeyOrderMatchesAGeneralSort(t *testing.T) {
	a, b := nvtxDataset(20_000, 3), nvtxDataset(5_000, 4)
	d := a
	named := "main"
	p1 := b.Profiles[0]
	p1.ID, p1.File, p1.EpochNS = 1, "q.sqlite", 1_000_000_000_000-5_000
	p1.Threads = []model.ProfileThread{{GlobalTID: 7<<24 | 105, Name: &named}, {GlobalTID: 1 << 60}}
	// Reversed: not the model's order, so the full sort takes over.
	p2 := model.Profile{ID: 2, File: "r.sqlite", Worker: "prefill-0", EpochNS: 1_000_000_000_000, Names: []string{"x"},
		Ranges: slices.Clone(a.Profiles[0].Ranges[:3_000])}
	slices.Reverse(p2.Ranges)
	empty := model.Profile{ID: 3, File: "s.sqlite", Worker: "decode-1", EpochNS: 1_000_000_000_000}
	d.Profiles = []model.Profile{p2, empty, p1, d.Profiles[0]}
	// Equal starts, ends descending, rowids ascending against the ends.
	tied := []model.NVTXRange{
		{StartNS: 10, EndNS: 900, GlobalTID: 7<<24 | 100, RowID: 50},
		{StartNS: 10, EndNS: 800, GlobalTID: 7<<24 | 100, RowID: 40},
		{StartNS: 10, EndNS: 20, GlobalTID: 7<<24 | 101, RowID: 30},
		{StartNS: 10, EndNS: 19, GlobalTID: 7<<24 | 101, RowID: 20},
	}
	d.Profiles[3].Ranges = append(tied, d.Profiles[3].Ranges...)
	sortRanges(d.Profiles[3].Ranges)

	path := filepath.Join(t.TempDir(), "s.sqlite")
	if _, err := Write(path, d); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantR, wantT, wantD := wantNVTX(d)
	for _, c := range []struct {
		name string
		q    string
		cols int
		want []string
	}{
		{"nvtx_ranges", `SELECT profile, bucket, start, "end", name, thread, source_row FROM nvtx_ranges`, 7, wantR},
		{"nvtx_threads", `SELECT profile, id, global_tid, pid, tid, name FROM nvtx_threads ORDER BY profile, id`, 6, wantT},
		{"nvtx_durations", `SELECT profile, bucket, maximum FROM nvtx_durations`, 3, wantD},
	} {
		got := readRows(t, db, c.q, c.cols)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d rows, want %d", c.name, len(got), len(c.want))
			continue
		}
		for k := range got {
			if got[k] != c.want[k] {
				t.Errorf("%s row %d: %s, want %s", c.name, k, got[k], c.want[k])
				break
			}
		}
	}
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check %q (%v)", ok, err)
	}
	if !strings.Contains(strings.Join(wantT, "\n"), "main") {
		t.Error("the listed thread name is not in the expected rows")
	}
}

// The NVTX write's memory does not grow with the ranges beyond its
// permutation and class arrays (5 bytes a range): no row copies, no
// allocation per row (a leaf page's split takes two, ~0.016 a range).
// Ten times the ranges may add at most 8 bytes and 0.05 allocations a
// range; one fat row and one record a range were 190 bytes and one
// allocation.
func TestNVTXWriteMemoryPerRange(t *testing.T) {
	dir := t.TempDir()
	measure := func(n int) (bytes, allocs uint64) {
		d := nvtxDataset(n, 2)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := Write(filepath.Join(dir, fmt.Sprint(n)+".sqlite"), d); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
	}
	const small, large = 20_000, 200_000
	b0, a0 := measure(small)
	b1, a1 := measure(large)
	perRange := float64(b1-b0) / (large - small)
	allocsPerRange := float64(a1-a0) / (large - small)
	t.Logf("%.1f bytes and %.4f allocations per range", perRange, allocsPerRange)
	if perRange > 8 || allocsPerRange > 0.05 {
		t.Errorf("the NVTX write takes %.1f bytes and %.4f allocations per range", perRange, allocsPerRange)
	}
}
