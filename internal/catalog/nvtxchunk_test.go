package catalog

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// decodeChunks lays p out and decodes every chunk as the engine does.
func decodeChunks(t testing.TB, p *model.Profile, origin int64) []*NVTXChunk {
	t.Helper()
	payloads, err := ProfileChunks(p, origin)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*NVTXChunk, len(payloads))
	for k, cp := range payloads {
		s, err := shard.Decode(cp.Raw)
		if err != nil {
			t.Fatal(err)
		}
		if out[k], err = DecodeNVTXChunk(s); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// checkChunks compares every decoded row, one at a time and a block at a
// time, with p's ranges.
func checkChunks(t *testing.T, p *model.Profile, origin int64, chunks []*NVTXChunk) {
	t.Helper()
	var starts, ends, names, threads []int64
	for k, c := range chunks {
		rs := p.Ranges[k*ProfileChunkRows : min((k+1)*ProfileChunkRows, len(p.Ranges))]
		if c.Len() != len(rs) {
			t.Fatalf("chunk %d holds %d rows, want %d", k, c.Len(), len(rs))
		}
		for lo := 0; lo < c.Len(); lo += ScanBlock {
			hi := min(lo+ScanBlock, c.Len())
			starts = c.Starts(starts, lo, hi)
			ends = c.Ends(ends, starts, lo, hi)
			names = c.Names(names, lo, hi)
			threads = c.ThreadIndexes(threads, lo, hi)
			for j := range hi - lo {
				r, x := lo+j, rs[lo+j]
				s, e := p.UTCNS(x.StartNS)-origin, p.UTCNS(x.EndNS)-origin
				got := [...]int64{c.Start(r), c.End(r), c.Name(r), c.GlobalTID(r), c.RowID(r), starts[j], ends[j], names[j], c.Threads[threads[j]]}
				want := [...]int64{s, e, int64(x.Name), x.GlobalTID, x.RowID, s, e, int64(x.Name), x.GlobalTID}
				if got != want {
					t.Fatalf("chunk %d row %d: got %v, want %v", k, r, got, want)
				}
			}
		}
	}
}

// Every value reads back exactly: thread ids above 2^53, a range far
// longer than the rest, inverted ones, names outside the table, row ids
// out of order, and values at the ends of int64.
func TestNVTXChunkReadsBackEveryValueExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const big = 1<<60 + 12345 // > 2^53: a float64 would round it
	p := &model.Profile{EpochNS: 1_700_000_000_000_000_000}
	tids := []int64{big, big + 1, 3<<24 | 4, math.MaxInt64, math.MinInt64}
	var at int64
	for k := range 3*ProfileChunkRows + 77 {
		at += rng.Int64N(200_000)
		x := model.NVTXRange{StartNS: at, EndNS: at + rng.Int64N(3_000_000), GlobalTID: tids[rng.IntN(len(tids))], RowID: int64(k)*3 + rng.Int64N(5), Name: int32(rng.IntN(40)) - 1}
		switch k % 997 {
		case 5:
			x.EndNS = at + 90e9 // a 90 s range
		case 6:
			x.EndNS = at - 7 // inverted
		case 7:
			x.RowID = math.MaxInt64
		case 8:
			x.Name = math.MaxInt32
		}
		p.Ranges = append(p.Ranges, x)
	}
	origin := p.EpochNS + 5
	checkChunks(t, p, origin, decodeChunks(t, p, origin))
}

func TestPackedIntsChoosesAWidthAndPatches(t *testing.T) {
	cases := map[string][]int64{
		"empty":    {},
		"one":      {42},
		"equal":    {-7, -7, -7},
		"ends":     {math.MinInt64, math.MaxInt64, 0, -1, 1},
		"outlier":  append(slices.Repeat([]int64{1, 2, 3}, 1000), 1<<50),
		"masks":    {0, 1, 2, 3, 3, 3, 7, 1 << 40},
		"negative": {-1 << 40, -1<<40 + 3, -1<<40 + 255},
		"contiguous": func() (v []int64) {
			for k := range 1000 {
				v = append(v, int64(k)+17)
			}
			return v
		}(),
		"steep": {math.MinInt64, 0, math.MaxInt64, math.MinInt64 + 5},
	}
	for name, vals := range cases {
		p := packInts(vals)
		for i, v := range vals {
			if got := p.at(i); got != v {
				t.Errorf("%s: row %d reads %d, want %d", name, i, got, v)
			}
		}
		for lo := 0; lo < len(vals); lo += 7 {
			hi := min(lo+7, len(vals))
			if got := p.expand(nil, lo, hi); !slices.Equal(got, vals[lo:hi]) {
				t.Errorf("%s: rows [%d, %d) read %v, want %v", name, lo, hi, got, vals[lo:hi])
			}
		}
	}
	// Contiguous row ids lie on their line: no bits at all.
	if p := packInts(cases["contiguous"]); p.width != 0 || p.slope != 1 {
		t.Errorf("contiguous: width %d, slope %d", p.width, p.slope)
	}
	// The outlier costs one patch, not eight bytes a row.
	if p := packInts(cases["outlier"]); p.width != 2 || len(p.patchRow) != 1 || p.wide != nil {
		t.Errorf("outlier: width %d, %d patches, wide %v", p.width, len(p.patchRow), p.wide != nil)
	}
}

// generatedLikeProfile is shaped as tools/gen's worker exports and a busy
// real one: a range every ~115 µs on a scheduler thread and a few helper
// threads, durations from microseconds to milliseconds, a handful of
// names, row ids in export order.
func generatedLikeProfile(n int) *model.Profile {
	rng := rand.New(rand.NewPCG(7, 12))
	p := &model.Profile{EpochNS: 1_789_682_756_017_918_920}
	const sched = 72058152434041347
	var at int64 = 2e9
	for k := range n {
		at += 100_000 + rng.Int64N(30_000)
		tid := int64(sched)
		if k%10 == 9 {
			tid += 1 + rng.Int64N(3)
		}
		p.Ranges = append(p.Ranges, model.NVTXRange{StartNS: at, EndNS: at + 5_000 + rng.Int64N(2_000_000), GlobalTID: tid, RowID: int64(k + 1), Name: int32(rng.IntN(6))})
	}
	return p
}

// maxHeldBytesPerRange bounds what a decoded range of a busy profile
// holds in the engine's detail cache (5.8 B): five million ranges must fit
// its budget (DefaultDetailCacheBytes in internal/query, 64 MiB, less the
// room the page keeps for views). Five int64 columns took 40 B a range.
const maxHeldBytesPerRange = 7.0

func TestDecodedChunkStaysSmallPerRange(t *testing.T) {
	p := generatedLikeProfile(8 * ProfileChunkRows)
	var held int64
	chunks := decodeChunks(t, p, p.EpochNS)
	for _, c := range chunks {
		held += c.HeldBytes()
	}
	per := float64(held) / float64(len(p.Ranges))
	t.Logf("%.2f B a range decoded (%d chunks, %d B)", per, len(chunks), held)
	if per > maxHeldBytesPerRange {
		t.Errorf("a decoded range holds %.2f B, want ≤ %.1f: five million ranges would no longer fit the detail cache", per, maxHeldBytesPerRange)
	}
	if five := per * 5e6; five > 56<<20 {
		t.Errorf("five million ranges hold %.0f B decoded, more than the 56 MiB the page hands the engine ahead of need", five)
	}
	checkChunks(t, p, p.EpochNS, chunks)
}
