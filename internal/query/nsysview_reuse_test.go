package query

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// mixedViewEngine is an engine over one profile of n ranges on three
// threads, nested and overlapping at random, with names from a small set
// (and some without one), all its detail shards given.
func mixedViewEngine(t *testing.T, n int) *Engine {
	t.Helper()
	d := nsightFixture(0)
	p := &d.Profiles[1]
	p.Names = []string{"a", "b", "c", "d"}
	p.Definitions = make([]model.NVTXDefinition, len(p.Names))
	for k := range p.Definitions {
		p.Definitions[k] = model.NVTXDefinition{Category: model.NVTXSGLang, Description: "SGLang scheduler stage"}
	}
	tids := []int64{3<<24 | 4, 3<<24 | 5, bigTID}
	p.Threads = []model.ProfileThread{{GlobalTID: tids[0]}, {GlobalTID: tids[2]}}
	rng := rand.New(rand.NewPCG(5, 6))
	p.Ranges = make([]model.NVTXRange, n)
	at := int64(0)
	for k := range p.Ranges {
		at += rng.Int64N(20_000)
		p.Ranges[k] = model.NVTXRange{StartNS: at, EndNS: at + rng.Int64N(200_000), GlobalTID: tids[rng.IntN(len(tids))], RowID: int64(k + 1), Name: int32(rng.IntN(len(p.Names)+1)) - 1}
	}
	p.Capture = [2]int64{0, at + 1}
	p.Counts = model.ProfileCounts{Kept: int64(n), Selected: int64(n)}
	d, details, err := profileDetails(d)
	if err != nil {
		t.Fatal(err)
	}
	e := withoutEvidence(t, d)
	for id, raw := range details {
		if err := e.Give(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// The buffers one view leaves behind (more threads, names and rows than
// the next needs) change nothing in the next answer.
func TestNsysViewAnswersTheSameWithReusedBuffers(t *testing.T) {
	e := mixedViewEngine(t, 3*catalog.ProfileChunkRows)
	small := []byte(`{"op":"nsys_view","args":{"profile":1,"from":1.0005,"to":1.001}}`)
	large := []byte(`{"op":"nsys_view","args":{"profile":1,"from":1.2,"to":1.35}}`)
	first, binaryAnswer := e.AppendAnswer(nil, small)
	if !binaryAnswer {
		t.Fatalf("not a view: %s", first)
	}
	big, _ := e.AppendAnswer(nil, large)
	if len(big) <= 4*len(first) {
		t.Fatalf("the large window (%d bytes) should hold far more than the small (%d)", len(big), len(first))
	}
	again, _ := e.AppendAnswer(nil, small)
	if !bytes.Equal(first, again) {
		t.Error("the small window answers differently after the large one")
	}
	if h, rows, _ := askView(t, e, `{"profile":1,"from":1.2,"to":1.35}`); h.Mode != "exact" || len(h.Threads) != 3 || len(rows) < 1000 || len(h.Names) != 5 {
		t.Errorf("large window: mode %s, %d threads, %d rows, names %q", h.Mode, len(h.Threads), len(rows), h.Names)
	}
}

// A zoom asks a view a frame: with its shards held, the layout reuses its
// buffers, so an answer allocates its small header only (it allocated the
// rows' references and floats, ~590 KB for 8,000 rows, before).
func TestNsysViewAllocatesOnlyItsHeader(t *testing.T) {
	e := mixedViewEngine(t, 3*catalog.ProfileChunkRows)
	q := []byte(`{"op":"nsys_view","args":{"profile":1,"from":1.2,"to":1.35}}`)
	dst, _ := e.AppendAnswer(nil, q)
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a collection empties the pool
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const calls = 20
	for range calls {
		dst, _ = e.AppendAnswer(dst[:0], q)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / calls; per > 16<<10 {
		t.Errorf("a view allocates %d bytes (%d rows drawn)", per, (len(dst)-4)/8/NsysViewRowFloats)
	}
}
