package query

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// batchFixture: a TRT-LLM iteration (global rank 4, local rank 0) at 2 s,
// two TokenSpeed snapshots (attention TP ranks 0 and 1) at 2.23 s and
// 5.5 s, and an unaligned iteration.
func batchFixture() *model.Dataset {
	d := fixture()
	d.Sources = append(d.Sources, model.Source{ID: 1, Path: "logs/h_decode_w0.out", Kind: "worker_log"})
	at := func(ns int64) *int64 { v := d.Meta.OriginNS + ns; return &v }
	decode := "decode"
	it := model.BatchObservation{Kind: model.BatchTRTLLMIteration, Format: "trtllm-v4", Worker: "decode-0", Host: "h", Role: "decode",
		Rank: ptr(int64(4)), RankKind: model.RankGlobal, LocalRank: ptr(int64(0)), LocalTime: "2026-09-17 10:58:33", StartNS: at(2 * s),
		Iteration: ptr(int64(12588)), Evidence: model.LineRef{Path: "logs/h_decode_w0.out", Line: 1}}
	it.Ints[model.BatchRequests] = ptr(int64(18))
	it.Floats[model.BatchPrevDeviceStepMS] = ptr(28.6)
	snap := func(rank int64, start int64, line int64) model.BatchObservation {
		o := model.BatchObservation{Kind: model.BatchTokenSpeedSnapshot, Format: "tokenspeed", Worker: "decode-0", Host: "h", Role: "decode",
			Rank: ptr(rank), RankKind: model.RankAttentionTP, LocalTime: "x", FracDigits: 3, StartNS: at(start), BatchKind: &decode,
			Evidence: model.LineRef{Path: "logs/h_decode_w0.out", Line: line}}
		o.Ints[model.BatchRunning], o.Ints[model.BatchQueued], o.Ints[model.BatchPagesTotal] = ptr(int64(4)), ptr(int64(12)), ptr(int64(4096))
		return o
	}
	un := it
	un.StartNS, un.Evidence.Line, un.Worker = nil, 9, "prefill-0"
	d.BatchObservations = []model.BatchObservation{it, snap(0, 2*s+230_000_000, 2), snap(1, 5*s+s/2, 3), un}
	return d
}

func TestIterations(t *testing.T) {
	e, err := FromDataset(batchFixture())
	if err != nil {
		t.Fatal(err)
	}
	res, msg := ask(t, e, `{"op":"iterations","args":{}}`)
	if msg != "" || res["total"].(float64) != 3 || res["unaligned_rows"].(float64) != 1 || !strings.Contains(res["attribution"].(string), "not attributed to requests") {
		t.Fatalf("%v %v", res, msg)
	}
	first := res["items"].([]any)[0].(map[string]any)
	if first["kind"] != "trtllm_iteration" || first["start"].(float64) != 2 || first["end"].(float64) != 3 || first["time_resolution_s"].(float64) != 1 ||
		first["global_rank"].(float64) != 4 || first["local_rank"].(float64) != 0 || first["iteration"].(float64) != 12588 ||
		first["previous_device_step_ms"].(float64) != 28.6 || first["running_requests"] != nil || first["batch_requests"].(float64) != 18 {
		t.Errorf("iteration item %v", first)
	}
	if ev := first["evidence"].(map[string]any); ev["source"].(float64) != 1 || ev["line"].(float64) != 1 {
		t.Errorf("evidence %v", ev)
	}
	snap := res["items"].([]any)[1].(map[string]any)
	if snap["rank_kind"] != "attention_tp" || snap["global_rank"] != nil || snap["running_requests"].(float64) != 4 || snap["queued_requests"].(float64) != 12 ||
		snap["pages_total"].(float64) != 4096 || snap["iteration"] != nil || snap["time_resolution_s"].(float64) != 0.001 {
		t.Errorf("snapshot item %v", snap)
	}
	for q, want := range map[string]float64{
		`{"op":"iterations","args":{"from":3,"to":4}}`:                 0, // the iteration covers [2, 3)
		`{"op":"iterations","args":{"from":3.0001,"to":6}}`:            1,
		`{"op":"iterations","args":{"rank":"0"}}`:                      1, // attention TP rank 0; the iteration's local rank 0 is not its rank
		`{"op":"iterations","args":{"rank":"4"}}`:                      1,
		`{"op":"iterations","args":{"worker":"prefill-0"}}`:            0,
		`{"op":"iterations","args":{"worker":"decode-0","limit":0}}`:   3,
		`{"op":"iterations","args":{"offset":2,"limit":1,"from":0.5}}`: 3,
	} {
		res, msg := ask(t, e, q)
		if msg != "" || res["total"].(float64) != want {
			t.Errorf("%s: total %v (%s), want %v", q, res["total"], msg, want)
		}
	}
	res, _ = ask(t, e, `{"op":"iterations","args":{"worker":"prefill-0"}}`)
	if res["unaligned_rows"].(float64) != 1 {
		t.Errorf("unaligned rows follow the worker filter: %v", res)
	}
	for _, q := range []string{`{"op":"iterations","args":{"limit":1001}}`, `{"op":"iterations","args":{"limit":1.5}}`, `{"op":"iterations","args":{"offset":-1}}`, `{"op":"iterations","args":{"from":5,"to":4}}`} {
		var env struct {
			OK   bool   `json:"ok"`
			Code string `json:"code"`
		}
		if err := json.Unmarshal(e.Handle([]byte(q)), &env); err != nil || env.OK || env.Code != "bad_args" {
			t.Errorf("%s: %+v %v", q, env, err)
		}
	}
	sum, _ := ask(t, e, `{"op":"summary","args":{}}`)
	if sum["capabilities"].(map[string]any)["iterations"] != true || sum["counts"].(map[string]any)["iterations"].(float64) != 4 {
		t.Errorf("summary %v", sum)
	}
	plain, _ := FromDataset(fixture())
	sum, _ = ask(t, plain, `{"op":"summary","args":{}}`)
	if sum["capabilities"].(map[string]any)["iterations"] != false {
		t.Errorf("iterations claimed without observations")
	}
}
