package importer

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
)

func batchRun(t *testing.T) string {
	root := writeRun(t)
	write(t, root, map[string]string{"logs/ts-host_decode_w1.out": "" +
		"\x1b[38;20m[2026-09-17 10:58:33,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 4, #pages(active/cached/total): 8/16/4096, page ratio: 0.01, gen throughput (token/s): 32.1, #queue-req: 12 (batch_log.py:151)\x1b[0m\n" +
		"[TRT-LLM] iter = 7, global_rank = 1, rank = 0, num_scheduled_requests = x, timestamp = 2026-09-17 10:58:34\n" +
		"[2026-09-17 11:30:00,000  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 1\n"})
	return root
}

// TestBatchObservationsImported: with a timezone, the reference's two
// iteration lines and the TokenSpeed snapshot are kept, aligned, with their
// evidence; the out-of-window snapshot and the unreadable record are
// counted warnings naming the first file:line; every worker log is one
// source.
func TestBatchObservationsImported(t *testing.T) {
	res, err := Import(Options{Run: batchRun(t), IterationTimezone: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if len(d.BatchObservations) != 3 || d.Audit["iteration_rows"] != 2 || d.Audit["batch_snapshot_rows"] != 1 {
		t.Fatalf("observations %+v audit %v", d.BatchObservations, d.Audit)
	}
	for _, o := range d.BatchObservations {
		if o.StartNS == nil || *o.StartNS-d.Meta.OriginNS < 2*int64(time.Second) {
			t.Errorf("not aligned at 10:58:33 UTC: %+v", o)
		}
	}
	snap := d.BatchObservations[2]
	if snap.Kind != model.BatchTokenSpeedSnapshot || snap.Worker != "decode-1" || snap.Evidence.Path != "logs/ts-host_decode_w1.out" || snap.Evidence.Line != 1 || *snap.Ints[model.BatchQueued] != 12 {
		t.Errorf("snapshot %+v", snap)
	}
	warns := strings.Join(d.Meta.Warnings, "\n")
	if !strings.Contains(warns, "1 iteration/batch snapshot line(s) lie outside the run window and were not kept, nor an engine id map on the same line (first: logs/ts-host_decode_w1.out:3)") ||
		!strings.Contains(warns, "1 iteration/batch snapshot line(s) could not be read and were skipped (first: logs/ts-host_decode_w1.out:2: ") {
		t.Errorf("warnings %s", warns)
	}
	seen := map[string]bool{}
	for _, s := range d.Sources {
		if seen[s.Path] {
			t.Errorf("%s registered twice", s.Path)
		}
		seen[s.Path] = true
	}
	e, err := query.FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := queryIterations(t, e, `{"from":2,"to":3,"worker":"decode-0","rank":"0"}`)
	if got.Total != 1 || got.UnalignedRows != 0 {
		t.Errorf("decode-0 rank 0 over 2..3: %+v", got)
	}
}

// TestBatchObservationsUnaligned: without a timezone the observations are
// kept unaligned (range total 0, unaligned 3) with a limitation note, and
// the original iteration number stays.
func TestBatchObservationsUnaligned(t *testing.T) {
	res, err := Import(Options{Run: batchRun(t)})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if len(d.BatchObservations) != 4 || d.Audit["unaligned_batch_observations"] != 4 || !strings.Contains(strings.Join(d.Meta.Limitations, "\n"), "--iteration-timezone") {
		t.Fatalf("%d observations, audit %v, limitations %v", len(d.BatchObservations), d.Audit, d.Meta.Limitations)
	}
	e, err := query.FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	got, raw := queryIterations(t, e, `{}`)
	if got.Total != 0 || got.UnalignedRows != 4 {
		t.Errorf("%s", raw)
	}
	if d.BatchObservations[0].Iteration == nil || *d.BatchObservations[0].Iteration != 12588 {
		t.Errorf("iteration number %+v", d.BatchObservations[0])
	}
}

type iterationsAnswer struct {
	Total         int              `json:"total"`
	UnalignedRows int              `json:"unaligned_rows"`
	Items         []map[string]any `json:"items"`
}

func queryIterations(t *testing.T, e *query.Engine, args string) (iterationsAnswer, string) {
	t.Helper()
	raw := e.Handle([]byte(`{"op":"iterations","args":` + args + `}`))
	var env struct {
		OK     bool             `json:"ok"`
		Result iterationsAnswer `json:"result"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || !env.OK {
		t.Fatalf("%s: %v", raw, err)
	}
	return env.Result, string(raw)
}

// TestBatchObservationsFrameARun: a run holding only iteration records is
// framed by them when their timezone is known (first start to last start
// plus one second); without it nothing can frame the run.
func TestBatchObservationsFrameARun(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"logs/h_decode_w0.out": "" +
		"[TRT-LLM] iter = 1, global_rank = 0, rank = 0, num_scheduled_requests = 1, timestamp = 2026-09-17 10:58:33\n" +
		"[TRT-LLM] iter = 2, global_rank = 0, rank = 0, num_scheduled_requests = 1, timestamp = 2026-09-17 10:58:36\n"})
	res, err := Import(Options{Run: root, IterationTimezone: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if d.Meta.DurationNS != 4*int64(time.Second) || d.Meta.OriginNS != time.Date(2026, 9, 17, 10, 58, 33, 0, time.UTC).UnixNano() || len(d.BatchObservations) != 2 {
		t.Fatalf("origin %d duration %d, %d observations", d.Meta.OriginNS, d.Meta.DurationNS, len(d.BatchObservations))
	}
	if _, err := Import(Options{Run: root}); err == nil || !strings.Contains(err.Error(), "no positive recorded time range") {
		t.Fatalf("unaligned-only run: %v", err)
	}
}

// TestOutOfWindowIterationDropsItsEngineMap: an iteration and an Engine ID
// map on one line are one record: with UTC the line outside the run window
// drops both; without a timezone both are kept (reference test 20).
func TestOutOfWindowIterationDropsItsEngineMap(t *testing.T) {
	root := writeRun(t)
	write(t, root, map[string]string{"logs/late-host_decode_w3.out": "[TRT-LLM] iter = 42, global_rank = 4, rank = 0, num_scheduled_requests = 2, kv_cache_util = 0.25, host_step_time = 1e-3ms, prev_device_step_time = 2.5E+1ms, timestamp = 2026-09-17 12:00:00 Engine ID map: request_id=22222222-2222-4222-8222-222222222222 trtllm_client_id=8 disagg_request_id=101\n"})
	maps := func(d *model.Dataset) int {
		n := 0
		for _, ev := range evidenceOf(t, d) {
			for _, e := range ev.Engine {
				if e.Ref.Path == "logs/late-host_decode_w3.out" {
					n++
				}
			}
		}
		return n
	}
	res, err := Import(Options{Run: root, IterationTimezone: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Dataset; d.Audit["engine_maps_outside_window"] != 1 || maps(d) != 0 || d.Audit["batch_observations_outside_window"] != 1 {
		t.Errorf("with UTC: audit %v, %d maps kept", d.Audit, maps(d))
	}
	res, err = Import(Options{Run: root})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Dataset; maps(d) != 1 || len(d.BatchObservations) != 3 {
		t.Errorf("without a timezone: %d maps, %d observations", maps(d), len(d.BatchObservations))
	}
}
