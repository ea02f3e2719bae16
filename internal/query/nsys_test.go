package query

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// bigTID is a packed thread id above 2^53: a float64 would round it.
const bigTID = int64(1)<<60 | int64(77)<<24 | 5

// nsightFixture is a run of 10 s with a frontend profile of n ranges, one
// every 10 µs, each 5 µs long, and a worker profile of one range.
func nsightFixture(n int) *model.Dataset {
	d := fixture()
	d.Meta.DurationNS = 10 * s
	d.Requests = nil
	d.Sources = append(d.Sources, model.Source{ID: 1, Path: "nsys/h_frontend_0.sqlite", Kind: "nsight"}, model.Source{ID: 2, Path: "nsys/h_decode_w0_profile_rank2.sqlite", Kind: "nsight"})
	// The session timeline starts 1 s after the origin.
	epoch := d.Meta.OriginNS + s
	fe := model.Profile{ID: 0, Source: 1, File: "nsys/h_frontend_0.sqlite", Mapped: true, Worker: "frontend", EpochNS: epoch, Capture: [2]int64{0, 9 * s},
		Names:       []string{"preprocess.tokenize", "route.pick"},
		Definitions: []model.NVTXDefinition{{Category: model.NVTXFrontend, Description: "frontend request preprocessing"}, {Category: model.NVTXFrontend, Description: "frontend routing"}},
		Limit:       int64(n), Threads: []model.ProfileThread{{GlobalTID: bigTID}}}
	for k := range n {
		fe.Ranges = append(fe.Ranges, model.NVTXRange{StartNS: int64(k) * 10_000, EndNS: int64(k)*10_000 + 5_000, GlobalTID: bigTID, RowID: int64(k + 1), Name: int32(k % 2)})
	}
	fe.Counts = model.ProfileCounts{Rows: int64(n), Scanned: int64(n), Selected: int64(n) + 3, Kept: int64(n)}
	fe.Truncated = true
	fe.CPU = &model.CPUSamples{PID: 77, Symbols: []string{"leaf", "main", "other"},
		Stacks:  [][]int32{{0, 0, 1}, {2, 1}},
		Samples: []model.CPUSample{{TimeNS: 0, GlobalTID: bigTID, Stack: 0, ID: 1}, {TimeNS: s, GlobalTID: bigTID, Stack: 1, ID: 2}, {TimeNS: 2 * s, GlobalTID: bigTID, Stack: 0, ID: 3}}}
	rank, role, idx := 2, "decode", 0
	wk := model.Profile{ID: 1, Source: 2, File: "nsys/h_decode_w0_profile_rank2.sqlite", Mapped: true, Worker: "decode-0", Role: &role, Index: &idx, Rank: &rank,
		EpochNS: epoch, Capture: [2]int64{0, 9 * s}, Names: []string{"scheduler.run_batch"},
		Definitions: []model.NVTXDefinition{{Category: model.NVTXSGLang, Description: "SGLang scheduler stage"}},
		Ranges:      []model.NVTXRange{{StartNS: 5_000, EndNS: 2 * s, GlobalTID: 3<<24 | 4, RowID: 9}}, Counts: model.ProfileCounts{Kept: 1, Selected: 1}}
	d.Profiles = []model.Profile{fe, wk}
	return d
}

type nsysAnswer struct {
	Total     int64 `json:"total"`
	Profile   *int  `json:"profile"`
	Truncated []struct {
		Kept, Selected int64
	} `json:"truncated"`
	Items []struct {
		Profile    int     `json:"profile"`
		Start      float64 `json:"start"`
		End        float64 `json:"end"`
		Name       string  `json:"name"`
		GlobalTID  string  `json:"global_tid"`
		PID        int64   `json:"pid"`
		TID        int64   `json:"tid"`
		RowID      int64   `json:"rowid"`
		Definition struct {
			Category string  `json:"category"`
			Backend  *string `json:"backend"`
		} `json:"definition"`
	} `json:"items"`
}

func askNsys(t *testing.T, e *Engine, args string) (nsysAnswer, *Error) {
	t.Helper()
	var env struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Code   Code            `json:"code"`
		Error  string          `json:"error"`
		Shards []ShardNeed     `json:"shards"`
	}
	if err := json.Unmarshal(e.Handle([]byte(`{"op":"nsys","args":`+args+`}`)), &env); err != nil {
		t.Fatal(err)
	}
	var a nsysAnswer
	if !env.OK {
		return a, &Error{Code: env.Code, Message: env.Error, Shards: env.Shards}
	}
	if err := json.Unmarshal(env.Result, &a); err != nil {
		t.Fatal(err)
	}
	return a, nil
}

func TestNsysExactRowsAndPages(t *testing.T) {
	n := 3*catalog.ProfileChunkRows + 100
	e, err := FromDataset(nsightFixture(n))
	if err != nil {
		t.Fatal(err)
	}
	a, qerr := askNsys(t, e, `{"profile":0,"offset":8190,"limit":4}`)
	if qerr != nil {
		t.Fatal(qerr)
	}
	if a.Total != int64(n) || len(a.Items) != 4 || a.Items[0].RowID != 8191 || a.Items[3].RowID != 8194 || *a.Profile != 0 {
		t.Fatalf("total %d items %+v", a.Total, a.Items)
	}
	it := a.Items[0]
	if it.GlobalTID != strconv.FormatInt(bigTID, 10) || it.PID != 77 || it.TID != 5 || it.Definition.Category != "frontend" || it.Definition.Backend != nil {
		t.Errorf("item %+v", it)
	}
	// 1 s (origin) + 8190 × 10 µs.
	if it.Start != 1.0819 || it.End != 1.081905 {
		t.Errorf("start %v end %v", it.Start, it.End)
	}
	if len(a.Truncated) != 1 || a.Truncated[0].Kept != int64(n) || a.Truncated[0].Selected != int64(n)+3 {
		t.Errorf("truncation %+v", a.Truncated)
	}
	// A window starting inside the first chunk: the page runs on into the
	// chunks wholly inside it.
	a, _ = askNsys(t, e, `{"profile":0,"from":1.08092,"to":1.3,"limit":10000}`)
	if a.Total != 16584 || len(a.Items) != 10000 || a.Items[0].RowID != 8093 || a.Items[9999].RowID != 18092 {
		t.Errorf("crossing page: total %d, %d items", a.Total, len(a.Items))
	}
	// A window and a name filter (case-insensitive substring).
	a, _ = askNsys(t, e, `{"profile":0,"from":1.0,"to":1.0001,"name":"ROUTE","limit":100}`)
	if a.Total != 5 || len(a.Items) != 5 || a.Items[0].Name != "route.pick" {
		t.Errorf("filtered: total %d items %+v", a.Total, a.Items)
	}
	// Every profile: (start, profile, range) order; a worker range crossing
	// the window is kept.
	a, _ = askNsys(t, e, `{"from":1.5,"to":1.6,"limit":2}`)
	if a.Profile != nil || a.Total != 1 || a.Items[0].Profile != 1 || a.Items[0].Definition.Backend == nil || *a.Items[0].Definition.Backend != "sglang" {
		t.Errorf("crossing range: %+v", a)
	}
	a, _ = askNsys(t, e, `{"rank":"2"}`)
	if a.Total != 1 {
		t.Errorf("rank filter total %d", a.Total)
	}
	if _, qerr := askNsys(t, e, `{"limit":10001}`); qerr == nil || qerr.Code != CodeBadArgs {
		t.Errorf("limit over 10,000: %v", qerr)
	}
}

// A report's engine holds no detail shard at first: it names the ones a
// question needs, and a page wholly inside the window needs only its own.
func TestNsysNamesTheShardsItNeeds(t *testing.T) {
	n := 3*catalog.ProfileChunkRows + 100
	d, details, err := profileDetails(nsightFixture(n))
	if err != nil {
		t.Fatal(err)
	}
	e := withoutEvidence(t, d)
	_, qerr := askNsys(t, e, `{"profile":0,"offset":8200,"limit":10}`)
	if qerr == nil || qerr.Code != CodeShardsNeeded || len(qerr.Shards) != 1 || qerr.Shards[0].ID != d.Profiles[0].Chunks[1].ID {
		t.Fatalf("err %v", qerr)
	}
	if err := e.Give(qerr.Shards[0].ID, details[qerr.Shards[0].ID]); err != nil {
		t.Fatal(err)
	}
	a, qerr := askNsys(t, e, `{"profile":0,"offset":8200,"limit":10}`)
	if qerr != nil || a.Total != int64(n) || a.Items[0].RowID != 8201 {
		t.Fatalf("after give: %v %+v", qerr, a)
	}
	res, _ := ask(t, e, `{"op":"detail_cache","args":{}}`)
	if res["cachedChunks"] != 1.0 || res["maxDecodedBytes"] != float64(DefaultDetailCacheBytes) {
		t.Errorf("cache %v", res)
	}
}

func TestCPUHotspotsCountOncePerSample(t *testing.T) {
	e, err := FromDataset(nsightFixture(10))
	if err != nil {
		t.Fatal(err)
	}
	res, msg := ask(t, e, `{"op":"cpu","args":{}}`)
	if msg != "" {
		t.Fatal(msg)
	}
	b, _ := json.Marshal(res["hotspots"])
	// leaf recurs in its stack but counts once per sample.
	if want := `[{"fraction":1,"samples":3,"symbol":"main"},{"fraction":0.6666666666666666,"samples":2,"symbol":"leaf"},{"fraction":0.3333333333333333,"samples":1,"symbol":"other"}]`; string(b) != want {
		t.Errorf("hotspots %s", b)
	}
	if res["total_samples"] != 3.0 || res["pid"] != 77.0 || res["available"] != true {
		t.Errorf("cpu %v", res)
	}
	res, _ = ask(t, e, `{"op":"cpu","args":{"from":1.5,"to":2.5,"limit":1}}`)
	if res["total_samples"] != 1.0 || len(res["hotspots"].([]any)) != 1 {
		t.Errorf("windowed cpu %v", res)
	}
	res, _ = ask(t, e, `{"op":"cpu","args":{"worker":"decode-0"}}`)
	if res["available"] != false || res["total_samples"] != 0.0 {
		t.Errorf("no samples: %v", res)
	}
	if _, msg := ask(t, e, `{"op":"cpu","args":{"limit":201}}`); msg == "" {
		t.Error("cpu limit over 200 accepted")
	}
}

func TestProfilesAndCapabilities(t *testing.T) {
	e, err := FromDataset(nsightFixture(10))
	if err != nil {
		t.Fatal(err)
	}
	res, msg := ask(t, e, `{"op":"profiles","args":{}}`)
	if msg != "" {
		t.Fatal(msg)
	}
	items := res["items"].([]any)
	fe := items[0].(map[string]any)
	th := fe["threads"].([]any)[0].(map[string]any)
	if th["global_tid"] != strconv.FormatInt(bigTID, 10) || fe["event_count"] != 10.0 || fe["truncated"] != true || fe["cpu_samples"] != 3.0 {
		t.Errorf("profile %v", fe)
	}
	den := fe["density"].(map[string]any)
	counts := den["counts"].([]any)
	if len(counts) != 512 || counts[51] != 10.0 || den["bin_seconds"] != 10.0/512 || !strings.Contains(den["note"].(string), "not CPU utilisation") {
		t.Errorf("density bins %d [51]=%v width %v", len(counts), counts[51], den["bin_seconds"])
	}
	wk := items[1].(map[string]any)
	if wk["rank"] != 2.0 || wk["rank_kind"] != "nsight_rank" || wk["gpus"] != nil {
		t.Errorf("worker %v", wk)
	}
	s := e.Summary()
	if !s.Capabilities.NVTX || !s.Capabilities.CPUSamples || !s.Capabilities.Nsight || s.Counts.Profiles != 2 {
		t.Errorf("capabilities %+v counts %+v", s.Capabilities, s.Counts)
	}
	for _, op := range []string{"profiles", "nsys", "cpu"} {
		if !slices.Contains(Names(false), op) {
			t.Errorf("%s is not a public kind", op)
		}
	}
}
