package query

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// askView asks "nsys_view" and decodes its header and rows.
func askView(t *testing.T, e *Engine, args string) (NsysViewHeader, [][NsysViewRowFloats]float64, *Error) {
	t.Helper()
	out, binaryAnswer := e.AppendAnswer(nil, []byte(`{"op":"nsys_view","args":`+args+`}`))
	var h NsysViewHeader
	if !binaryAnswer {
		var env failureEnvelope
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		return h, nil, &Error{Code: env.Code, Message: env.Error, Shards: env.Shards}
	}
	n := int(binary.LittleEndian.Uint32(out))
	if err := json.Unmarshal(out[4:4+n], &h); err != nil {
		t.Fatal(err)
	}
	at := (4 + n + 7) / 8 * 8
	var rows [][NsysViewRowFloats]float64
	for ; at+8*NsysViewRowFloats <= len(out); at += 8 * NsysViewRowFloats {
		var r [NsysViewRowFloats]float64
		for k := range r {
			r[k] = math.Float64frombits(binary.LittleEndian.Uint64(out[at+8*k:]))
		}
		rows = append(rows, r)
	}
	if at != len(out) {
		t.Fatalf("%d trailing bytes", len(out)-at)
	}
	return h, rows, nil
}

func TestNsysViewDensityAboveTheExactThreshold(t *testing.T) {
	n := 3*catalog.ProfileChunkRows + 100
	e, err := FromDataset(nsightFixture(n))
	if err != nil {
		t.Fatal(err)
	}
	h, rows, qerr := askView(t, e, `{"profile":0}`)
	if qerr != nil {
		t.Fatal(qerr)
	}
	if h.Mode != "density" || h.Estimate != int64(n) || h.Threshold != 20000 || len(rows) != 0 {
		t.Fatalf("header %+v, %d rows", h, len(rows))
	}
	d := h.Density
	if d.Bins != 512 || d.First != 0 || len(d.Counts) != 512 || d.BinSeconds != 10.0/512 || d.Note != densityNote {
		t.Errorf("density %+v", d)
	}
	// A window over three chunks answers the bins it overlaps.
	h, _, _ = askView(t, e, `{"profile":0,"from":1.0,"to":1.2}`)
	if h.Mode != "density" || h.Density.First != 51 || len(h.Density.Counts) != 11 {
		t.Errorf("window density %+v", h.Density)
	}
}

func TestNsysViewExactRangesInLanes(t *testing.T) {
	n := 3*catalog.ProfileChunkRows + 100
	d := nsightFixture(n)
	// Seven nested ranges on one worker thread: five lanes, two past them.
	wk := &d.Profiles[1]
	tid := wk.Ranges[0].GlobalTID
	wk.Ranges = nil
	for k := range 7 {
		wk.Ranges = append(wk.Ranges, model.NVTXRange{StartNS: int64(k) * 1000, EndNS: 2*s - int64(k)*1000, GlobalTID: tid, RowID: int64(k + 1)})
	}
	wk.Ranges = append(wk.Ranges, model.NVTXRange{StartNS: 3 * s, EndNS: 4 * s, GlobalTID: tid, RowID: 8})
	wk.Counts.Kept = 8
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	// Chunks 0 and 1 overlap [1.0, 1.1]: 16,384 rows, below the threshold.
	h, rows, qerr := askView(t, e, `{"profile":0,"from":1.0,"to":1.1}`)
	if qerr != nil {
		t.Fatal(qerr)
	}
	if h.Mode != "exact" || h.Estimate != 2*int64(catalog.ProfileChunkRows) || h.Total != 10001 || h.Drawn != 10001 || len(rows) != 10001 {
		t.Fatalf("header %+v, %d rows", h, len(rows))
	}
	if len(h.Threads) != 1 || h.Threads[0].PID != 77 || h.Threads[0].Lanes != 1 || h.Threads[0].Ranges != 10001 {
		t.Errorf("threads %+v", h.Threads)
	}
	if rows[0] != [5]float64{1.0, 1.000005, 0, 0, 0} || h.Names[0] != "preprocess.tokenize" || h.Names[1] != "route.pick" {
		t.Errorf("first row %v names %v", rows[0], h.Names)
	}
	if len(h.TopNames) != 2 || h.TopNames[0].Count+h.TopNames[1].Count != 10001 {
		t.Errorf("top names %+v", h.TopNames)
	}
	h, rows, _ = askView(t, e, `{"worker":"decode-0","from":1.0,"to":6.0}`)
	if h.Mode != "exact" || h.Total != 8 || h.Drawn != 6 || h.Threads[0].Lanes != 5 || h.Threads[0].Hidden != 2 {
		t.Fatalf("lanes: %+v", h)
	}
	for k, r := range rows[:5] {
		if r[4] != float64(k) {
			t.Errorf("row %d on lane %v", k, r[4])
		}
	}
	if rows[5][4] != 0 || rows[5][0] != 4.0 {
		t.Errorf("a range after the nest takes the first lane again: %v", rows[5])
	}
	if _, _, qerr := askView(t, e, `{}`); qerr == nil || qerr.Code != CodeBadArgs {
		t.Errorf("two profiles: %v", qerr)
	}
}

// Exact views name the shards they need, as "nsys" does.
func TestNsysViewNamesTheShardsItNeeds(t *testing.T) {
	d, _, err := profileDetails(nsightFixture(3*catalog.ProfileChunkRows + 100))
	if err != nil {
		t.Fatal(err)
	}
	e := withoutEvidence(t, d)
	if h, _, qerr := askView(t, e, `{"profile":0}`); qerr != nil || h.Mode != "density" {
		t.Fatalf("density needs no shard: %v %+v", qerr, h)
	}
	if _, _, qerr := askView(t, e, `{"profile":0,"from":1.0,"to":1.1}`); qerr == nil || qerr.Code != CodeShardsNeeded || len(qerr.Shards) != 2 {
		t.Fatalf("exact: %v", qerr)
	}
}

// BenchmarkNsysView asks "nsys_view" for 20 random windows of 8,000 rows
// (at most two chunks: exact) in turn, giving the shards each names once,
// as zooms over held shards do.
func BenchmarkNsysView(b *testing.B) {
	e, details, dur := benchNsysEngine(b, 2_000_000)
	rng := rand.New(rand.NewPCG(1, 2))
	width := 8_000 * 10e-6
	var froms [20]float64
	for k := range froms {
		froms[k] = 1 + rng.Float64()*(dur-2-width)
	}
	var dst []byte
	view := func(k int) {
		a := Args{From: &froms[k%len(froms)], To: ptr(froms[k%len(froms)] + width), Profile: ptr(0)}
		for {
			out, err := e.appendNsysView(dst[:0], a)
			if qe, ok := err.(*Error); ok && qe.Code == CodeShardsNeeded {
				for _, need := range qe.Shards {
					if err := e.Give(need.ID, details[need.ID]); err != nil {
						b.Fatal(err)
					}
				}
				continue
			}
			if err != nil {
				b.Fatal(err)
			}
			dst = out
			break
		}
	}
	for k := range froms {
		view(k)
	}
	b.ReportAllocs()
	cpu0 := cpuNS()
	b.ResetTimer()
	defer func() { b.ReportMetric(float64(cpuNS()-cpu0)/float64(b.N), "cpu-ns/op") }()
	for k := range b.N {
		view(k)
	}
}

// The detail cache counts the columns it holds, not the shard payloads:
// its budget bounds the engine's memory.
func TestDetailCacheCountsTheColumnsItHolds(t *testing.T) {
	d, details, err := profileDetails(nsightFixture(3*catalog.ProfileChunkRows + 100))
	if err != nil {
		t.Fatal(err)
	}
	e := withoutEvidence(t, d)
	id := d.Profiles[0].Chunks[0].ID
	if err := e.Give(id, details[id]); err != nil {
		t.Fatal(err)
	}
	st, err := e.detailCacheOp(Args{})
	if err != nil {
		t.Fatal(err)
	}
	// The columns are packed (catalog.NVTXChunk): what the cache counts is
	// what the decoded chunk holds, or the payload when that is larger.
	s, err := shard.Decode(details[id])
	if err != nil {
		t.Fatal(err)
	}
	ch, err := catalog.DecodeNVTXChunk(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := max(ch.HeldBytes(), int64(len(details[id]))); st.DecodedBytes != want {
		t.Errorf("decoded bytes %d, want %d (the payload is %d bytes, the columns %d)", st.DecodedBytes, want, len(details[id]), ch.HeldBytes())
	}
}
