package query

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/dsight/dsight/internal/perfetto"
)

func exportTrace(t *testing.T, e *Engine) (*perfetto.Trace, []byte) {
	t.Helper()
	out, binary := e.AppendAnswer(nil, []byte(`{"op":"perfetto"}`))
	if !binary {
		t.Fatalf("perfetto answered %s", out)
	}
	tr, err := perfetto.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	return tr, out
}

// The export holds every client request once, on a lane of the client
// process where no other request overlaps it, annotated with what it
// recorded and nothing else; its stages nest under it, and a flow leads
// from it to each server process that served it.
func TestPerfettoRequests(t *testing.T) {
	e, err := FromDataset(serverFixture())
	if err != nil {
		t.Fatal(err)
	}
	tr, raw := exportTrace(t, e)
	byUUID := map[uint64]perfetto.Track{}
	for _, tk := range tr.Tracks {
		byUUID[tk.UUID] = tk
	}
	var client uint64
	for _, tk := range tr.Tracks {
		if tk.Process != nil && tk.Process.Name == "Client requests (aiperf)" {
			client = tk.UUID
		}
	}
	if client == 0 {
		t.Fatal("no client process track")
	}
	type span struct {
		lane       uint64
		start, end int64
	}
	reqs := map[string]span{}
	args := map[string]map[string]any{}
	var stages, served, flows int
	open := map[uint64][]string{}
	for _, ev := range tr.Events {
		switch ev.Type {
		case perfetto.Begin:
			open[ev.Track] = append(open[ev.Track], ev.Name)
			flows += len(ev.Flows)
			served += len(ev.Terminating)
			if byUUID[ev.Track].Parent != client {
				continue
			}
			if ev.Depth == 0 {
				id := ev.Args["request_id"].(string)
				reqs[id] = span{lane: ev.Track, start: ev.TS}
				args[id] = ev.Args
			} else {
				stages++
				if ev.Args["request_id"] != "parent-turn" || ev.Args["source"] == nil {
					t.Errorf("stage %s: %v", ev.Name, ev.Args)
				}
			}
		case perfetto.End:
			open[ev.Track] = open[ev.Track][:len(open[ev.Track])-1]
			for id, s := range reqs {
				if s.lane == ev.Track && s.end == 0 && ev.Depth == 0 {
					s.end = ev.TS
					reqs[id] = s
				}
			}
		}
	}
	if len(reqs) != 4 {
		t.Fatalf("%d requests exported, want 4: %v", len(reqs), reqs)
	}
	for a, x := range reqs {
		for b, y := range reqs {
			if a < b && x.lane == y.lane && x.start < y.end && y.start < x.end {
				t.Errorf("%s and %s overlap on one lane", a, b)
			}
		}
	}
	if reqs["parent-turn"].lane == reqs["child-turn"].lane {
		t.Error("overlapping requests share a lane")
	}
	origin := e.c.Meta.OriginNS
	if got := reqs["parent-turn"]; got.start != origin || got.end != origin+8*s {
		t.Errorf("parent-turn runs %d..%d, want the recorded epoch times", got.start, got.end)
	}
	p := args["parent-turn"]
	if p["ttft_ms"] != 3000.0 || p["source"] != "logs/profile_export.jsonl:1" || p["latency_ms"] != 8000.0 || p["workers"] != "decode-0, prefill-0" {
		t.Errorf("parent-turn annotations %v", p)
	}
	hostile := args["<img src=x onerror=alert(1)>"]
	for _, unknown := range []string{"ttft_ms", "input_tokens", "output_tokens"} {
		if _, ok := hostile[unknown]; ok {
			t.Errorf("a value the request did not record is annotated: %s = %v", unknown, hostile[unknown])
		}
	}
	if hostile["status"] != "cancelled" {
		t.Errorf("status %v", hostile["status"])
	}
	if stages == 0 || flows == 0 || flows != served || flows != tr.Flows {
		t.Errorf("%d stages, %d flows started, %d ended, %d flows", stages, flows, served, tr.Flows)
	}
	// The same report exports the same bytes.
	if _, again := exportTrace(t, e); !bytes.Equal(raw, again) {
		t.Error("two exports of one report differ")
	}
}

// Without the server evidence the export waits for it, as every answer
// that reads it does.
func TestPerfettoWaitsForEvidence(t *testing.T) {
	e := withoutEvidence(t, serverFixture())
	var env struct {
		Code Code `json:"code"`
	}
	out, binary := e.AppendAnswer(nil, []byte(`{"op":"perfetto"}`))
	if binary || json.Unmarshal(out, &env) != nil || env.Code != CodeEvidencePending {
		t.Fatalf("got %s", out)
	}
}

func TestPerfettoGroup(t *testing.T) {
	cases := []struct {
		group, unit, temporal string
		counter               bool
		want                  string
	}{
		{"Latency", "s", "", false, "Latency"},
		{"per request", "tokens", "", false, "Per Request"},
		{"Log-derived metrics", "requests", "event", false, "Concurrency"},
		{"Utilization", "%", "", false, PerfettoOtherGroup},
		{"NVLink and PCIe", "stored value", "", true, "Totals"},
		{"Log-derived metrics", "tokens/s", "event", false, "Throughput"},
		{"Log-derived metrics", "ms", "event", false, "Latency"},
		{"Log-derived metrics", "tokens", "event", false, "Per Request"},
		{"Log-derived metrics", "tokens", "sample", false, PerfettoOtherGroup},
	}
	for _, c := range cases {
		if got := perfettoGroup(c.group, c.unit, c.temporal, c.counter); got != c.want {
			t.Errorf("%+v: %s", c, got)
		}
	}
}

// place nests a slice only under an open slice of the same owner that
// contains it; otherwise it takes the first free lane.
func TestPerfettoPlace(t *testing.T) {
	x := &exporter{}
	var lanes []*pfLane
	put := func(start, end int64, owner int32) int {
		l := x.place(&lanes, 0, pfSlice{start: start, end: end, req: owner}, "lane ")
		for k := range lanes {
			if lanes[k] == l {
				return k
			}
		}
		return -1
	}
	steps := []struct {
		start, end int64
		owner      int32
		lane       int
	}{
		{0, 10, 1, 0},  // request 1's envelope
		{1, 3, 1, 0},   // nests in it
		{2, 4, 1, 1},   // overlaps its sibling: not nested, so a free lane
		{2, 3, 2, 2},   // another request inside request 1's time: never nested under it
		{10, 12, 2, 0}, // lane 0 is free again at 10 (touching ends)
		{11, 11, 2, 0}, // zero-length, inside its own request
	}
	for _, st := range steps {
		if got := put(st.start, st.end, st.owner); got != st.lane {
			t.Errorf("%+v went to lane %d", st, got)
		}
	}
}
