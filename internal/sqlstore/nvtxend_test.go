package sqlstore

import (
	"database/sql"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// nvtxEndDataset is one profile whose epoch lies 10 s before the origin
// (so some starts are negative), with ordinary ranges over ten minutes,
// zero and long durations, and ranges 2^49 to 2^53 ns from the origin,
// where a start's seconds stop naming one nanosecond.
func nvtxEndDataset() *model.Dataset {
	const origin = int64(1_789_682_756_017_918_920)
	epoch := origin - 10_000_000_000
	rng := rand.New(rand.NewPCG(21, 3))
	var rs []model.NVTXRange
	add := func(start, dur int64) {
		rs = append(rs, model.NVTXRange{StartNS: start, EndNS: start + dur, GlobalTID: 7<<24 | 100, RowID: int64(len(rs) + 1)})
	}
	for range 20_000 {
		add(rng.Int64N(610_000_000_000), rng.Int64N(1<<uint(rng.IntN(34))))
	}
	add(0, 0)
	add(10_000_000_000, 0)
	add(5, 1<<34)
	for e := 49; e <= 53; e++ {
		for range 200 {
			add(int64(1)<<e+rng.Int64N(1<<40), rng.Int64N(1<<30))
		}
	}
	sortRanges(rs)
	return &model.Dataset{
		Meta: model.Meta{Job: "j", OriginNS: origin, DurationNS: 1 << 54, Phase: "profiling"},
		Profiles: []model.Profile{{ID: 1, File: "p.sqlite", Worker: "decode-0", EpochNS: epoch, Names: []string{"r"},
			Threads: []model.ProfileThread{{GlobalTID: 7<<24 | 100}}, Ranges: rs}},
	}
}

// The computed "end" reads back as the engine's end (the nanoseconds from
// the origin divided once), bit for bit, through the library and through
// the sqlite3 command; end_exact is NULL for every range within 2^49 ns
// (6.5 days) of the origin and holds the end only where the expression
// could not give it.
func TestNVTXEndReadsAsTheEngineComputes(t *testing.T) {
	d := nvtxEndDataset()
	p := &d.Profiles[0]
	want, byRow := map[int64]float64{}, map[int64]model.NVTXRange{}
	for _, r := range p.Ranges {
		want[r.RowID], byRow[r.RowID] = float64(p.UTCNS(r.EndNS)-d.Meta.OriginNS)/1e9, r
	}
	path := filepath.Join(t.TempDir(), "s.sqlite")
	if _, err := Write(path, d); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT source_row, start, "end", duration_ns, end_exact IS NOT NULL FROM nvtx_ranges`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n, kept := 0, 0
	for rows.Next() {
		var row, dur int64
		var start, end float64
		var exact bool
		if err := rows.Scan(&row, &start, &end, &dur, &exact); err != nil {
			t.Fatal(err)
		}
		n++
		r := byRow[row]
		if math.Float64bits(end) != math.Float64bits(want[row]) {
			t.Fatalf("row %d: end %v, the engine's %v", row, end, want[row])
		}
		if dur != r.EndNS-r.StartNS {
			t.Fatalf("row %d: duration_ns %d, want %d", row, dur, r.EndNS-r.StartNS)
		}
		if exact {
			kept++
			if s := p.UTCNS(r.StartNS) - d.Meta.OriginNS; s < 1<<49 && s > -1<<49 {
				t.Errorf("row %d, %d ns from the origin, keeps end_exact", row, s)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(p.Ranges) || kept == 0 {
		t.Fatalf("%d rows of %d, %d keep end_exact: the far ranges should", n, len(p.Ranges), kept)
	}
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check %q (%v)", ok, err)
	}
	t.Logf("%d of %d rows keep end_exact", kept, n)

	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("no sqlite3 command (Debian package sqlite3)")
	}
	// quote() spells a REAL so that it reads back as the same double.
	out, err := exec.Command(bin, "-readonly", "-batch", path, `SELECT source_row, quote("end") FROM nvtx_ranges; PRAGMA integrity_check`).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != n+1 || lines[n] != "ok" {
		t.Fatalf("sqlite3 printed %d lines, want %d and ok: %q", len(lines), n+1, lines[len(lines)-1])
	}
	for _, l := range lines[:n] {
		row, end, _ := strings.Cut(l, "|")
		k, err1 := strconv.ParseInt(row, 10, 64)
		v, err2 := strconv.ParseFloat(end, 64)
		if err1 != nil || err2 != nil || math.Float64bits(v) != math.Float64bits(want[k]) {
			t.Fatalf("sqlite3: %q, the engine's end %v", l, want[k])
		}
	}
}

// An NVTX range takes at most 28 bytes of the store, b-tree pages and all,
// at the durations a profile has (up to 2^27 ns here): a stored 8-byte
// end made it 32.
func TestNVTXRangeBytes(t *testing.T) {
	dir := t.TempDir()
	size := func(n int) int64 {
		path := filepath.Join(dir, strconv.Itoa(n)+".sqlite")
		if _, err := Write(path, nvtxDataset(n, 6)); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	const n = 200_000
	per := float64(size(n)-size(0)) / n
	t.Logf("%.2f bytes per range", per)
	if per > 28 {
		t.Errorf("an NVTX range takes %.2f bytes of the store, want at most 28", per)
	}
}

// endComputedFast never vouches for an end endIsComputed would refuse:
// starts of whole nanoseconds at every scale up to and past 2^50 ns, on
// both sides of the origin, with durations up to and past 2^50 ns.
func TestEndComputedFastImpliesComputed(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	fast := 0
	for range 2_000_000 {
		startNS := rng.Int64N(int64(1) << uint(rng.IntN(54)))
		if rng.IntN(2) == 0 {
			startNS = -startNS
		}
		durNS := rng.Int64N(int64(1) << uint(rng.IntN(52)))
		start := float64(startNS) / 1e9
		end := float64(startNS+durNS) / 1e9
		if !endComputedFast(start, startNS, durNS) {
			continue
		}
		fast++
		if !endIsComputed(start, end, durNS) {
			t.Fatalf("start %d ns, duration %d ns: the fast check vouched for an end the expression misses", startNS, durNS)
		}
	}
	// It must also vouch for most ordinary rows, or it spares nothing.
	if fast < 1_500_000 {
		t.Errorf("the fast check vouched for %d of 2,000,000 rows", fast)
	}
}
