package tokenspeed

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
)

func render(obs logmetric.Observation) string {
	var b strings.Builder
	s := obs.Time
	fmt.Fprintf(&b, "%02d:%02d:%02d.%09d/%d %s |", s.Hour, s.Minute, s.Second, s.Nanosecond, s.FracDigits, obs.Rank)
	for _, v := range obs.Values {
		val := "null"
		if !v.Null {
			val = fmt.Sprint(v.Number)
		}
		fmt.Fprintf(&b, " %s=%s", strings.TrimPrefix(v.Name, "log_tokenspeed_"), val)
	}
	return b.String()
}

func TestDecode(t *testing.T) {
	const p0 = "[2026-09-17 10:58:33,230  ATTN TP RANK 0] - INFO - "
	tests := []struct{ name, line, want string }{
		{"decode batch with spec fields", p0 + "Decode batch. #running-req: 4, #pages(active/cached/total): 8/16/4096, page ratio: 0.01, gen throughput (token/s): 32.1, avg_accept_len: 1.00, accept_rate: 0.00, #queue-req: 12 (batch_log.py:151)",
			"10:58:33.230000000/3 attention_tp:0 | active_decode_requests=4 active_kv_pages=8 kv_pool_pages=4096"},
		{"single space before ATTN, no pages", "[2026-09-17 10:58:33,230 ATTN TP RANK 0] - INFO - Decode batch. #running-req: 3",
			"10:58:33.230000000/3 attention_tp:0 | active_decode_requests=3"},
		{"config with ANSI colour", "\x1b[38;20m[2026-09-17 10:58:30,000  ATTN TP RANK 0] - INFO - Scheduler config: num_device_pages=129 max_batch_size=8 (global max_num_seqs=64, dp_size=8) (event_loop.py:329)\x1b[0m",
			"10:58:30.000000000/3 attention_tp:0 | decode_request_limit=8"},
		{"config without max_batch_size clears", p0 + "Scheduler config: num_device_pages=129", "10:58:33.230000000/3 attention_tp:0 | decode_request_limit=null"},
		{"config with zero clears", p0 + "Scheduler config: max_batch_size=0", "10:58:33.230000000/3 attention_tp:0 | decode_request_limit=null"},
		{"config with non-numeric clears", p0 + "Scheduler config: max_batch_size=auto", "10:58:33.230000000/3 attention_tp:0 | decode_request_limit=null"},
		{"config with signed value clears", p0 + "Scheduler config: max_batch_size=+8", "10:58:33.230000000/3 attention_tp:0 | decode_request_limit=null"},
		{"config value glued to text clears", p0 + "Scheduler config: max_batch_size=8,", "10:58:33.230000000/3 attention_tp:0 | decode_request_limit=null"},
		{"config prefix-named key is not the limit", p0 + "Scheduler config: global_max_batch_size=64 max_batch_size=32", "10:58:33.230000000/3 attention_tp:0 | decode_request_limit=32"},
		{"config at end of text", p0 + "Scheduler config: max_batch_size=32", "10:58:33.230000000/3 attention_tp:0 | decode_request_limit=32"},
		{"empty config text", p0 + "Scheduler config: ", ""},
		{"prefill batch gives no decode requests", p0 + "Prefill batch. #new-seq: 2, #new-token: 512, #cached-token: 0, #running-req: 6, #queue-req: 1", ""},
		{"prefill batch with pages", p0 + "Prefill batch. #running-req: 6, #pages(active/cached/total): 64/8/2048", "10:58:33.230000000/3 attention_tp:0 | active_kv_pages=64 kv_pool_pages=2048"},
		{"mix batch ignored", p0 + "Mix batch. #running-req: 7, #pages(active/cached/total): 1/2/3", ""},
		{"fork variant with dp-rank", p0 + "Decode batch. #dp-rank: 3, avg_seq_len: 512.50, #running-req: 7, #pages(active/cached/total): 20/0/4096, #queue-req: 0",
			"10:58:33.230000000/3 attention_tp:0 | active_decode_requests=7 active_kv_pages=20 kv_pool_pages=4096"},
		{"fractional running count is invalid", p0 + "Decode batch. #running-req: 4.5, #pages(active/cached/total): 8/16/4096",
			"10:58:33.230000000/3 attention_tp:0 | active_kv_pages=8 kv_pool_pages=4096"},
		{"truncated pages are invalid", p0 + "Decode batch. #running-req: 4, #pages(active/cached/total): 8/16", "10:58:33.230000000/3 attention_tp:0 | active_decode_requests=4"},
		{"pages glued to text are invalid", p0 + "Decode batch. #pages(active/cached/total): 8/16/4096x", ""},
		{"huge page count is invalid", p0 + "Decode batch. #pages(active/cached/total): 8/16/99999999999999999", ""},
		{"no field after batch", p0 + "Decode batch. ", ""},
		{"plain logger, no milliseconds", "[2026-09-17 10:58:41 ATTN TP RANK 2] Decode batch. #running-req: 2", "10:58:41.000000000/0 attention_tp:2 | active_decode_requests=2"},
		{"progress output before the prefix", "Loading: 100%|##| 8/8\r" + p0 + "Decode batch. #running-req: 1", "10:58:33.230000000/3 attention_tp:0 | active_decode_requests=1"},
		{"period fraction", "[2026-09-17 10:58:33.230  ATTN TP RANK 0] Decode batch. #running-req: 1", ""},
		{"no whitespace before ATTN", "[2026-09-17 10:58:33,230ATTN TP RANK 0] Decode batch. #running-req: 1", ""},
		{"rank not a number", "[2026-09-17 10:58:33,230  ATTN TP RANK x] Decode batch. #running-req: 1", ""},
		{"rank too long", "[2026-09-17 10:58:33,230  ATTN TP RANK 1234567890] Decode batch. #running-req: 1", ""},
		{"unrelated line", p0 + "Processing request 7 (handler.py:88)", ""},
		{"SGLang line", "[2026-04-08 14:05:21 TP0] Decode batch, #running-req: 5, #token: 20800", ""},
		{"TRT-LLM line", "[TRT-LLM] iter = 42, global_rank = 4, rank = 0, num_scheduled_requests = 2, kv_cache_util = 0.25, host_step_time = 1e-3ms, prev_device_step_time = 2.5E+1ms, timestamp = 2026-09-17 10:58:34", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs, ok, err := Generator{}.Decode([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if ok {
				got = render(obs)
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestDecodeImpossibleDateIsAnError(t *testing.T) {
	_, _, err := Generator{}.Decode([]byte("[2026-09-31 10:58:33,230  ATTN TP RANK 0] Decode batch. #running-req: 1"))
	if !errors.Is(err, logmetric.ErrInvalidStamp) {
		t.Fatalf("err = %v", err)
	}
}

func TestDefinitions(t *testing.T) {
	defs, err := logmetric.Catalog(Generator{})
	if err != nil {
		t.Fatal(err)
	}
	type def struct {
		name, unit string
		temporal   logmetric.Temporal
		ref        string
	}
	var got []def
	for _, d := range defs {
		got = append(got, def{d.Name, d.Unit, d.Temporal, d.Reference})
	}
	want := []def{
		{"log_tokenspeed_active_decode_requests", "requests", logmetric.TemporalSample, "log_tokenspeed_decode_request_limit"},
		{"log_tokenspeed_decode_request_limit", "requests", logmetric.TemporalSetting, ""},
		{"log_tokenspeed_active_kv_pages", "pages", logmetric.TemporalSample, "log_tokenspeed_kv_pool_pages"},
		{"log_tokenspeed_kv_pool_pages", "pages", logmetric.TemporalSample, ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("definitions\n got %v\nwant %v", got, want)
	}
	defs[0].Reference = "x"
	if (Generator{}).Definitions()[0].Reference == "x" {
		t.Errorf("Definitions exposes the generator's own slice")
	}
}

// TestCapacityScenario follows the reference suite: a limit configured before
// the run, batches at 2.23 s and 5.23 s, a zoom, then a restart that logs no
// limit.
func TestCapacityScenario(t *testing.T) {
	log := strings.Join([]string{
		"\x1b[38;20m[2026-09-17 10:58:30,000  ATTN TP RANK 0] - INFO - Scheduler config: num_device_pages=129 max_batch_size=8 (global max_num_seqs=64, dp_size=8) (event_loop.py:329)\x1b[0m",
		"[2026-09-17 10:58:33,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 4, #pages(active/cached/total): 8/16/128, page ratio: 0.06, gen throughput (token/s): 32.1, #queue-req: 12 (batch_log.py:151)",
		"[2026-09-17 10:58:36,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 6, #pages(active/cached/total): 32/0/128, page ratio: 0.25, gen throughput (token/s): 40.0, #queue-req: 0 (batch_log.py:151)",
		"[2026-09-17 10:58:37,000  ATTN TP RANK 0] - INFO - Scheduler config: num_device_pages=129 (event_loop.py:329)",
		"[2026-09-17 10:58:38,000  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 2 (batch_log.py:151)",
	}, "\n")
	src := logmetric.SourceInfo{Path: "logs/d_decode_w0.out", SourceID: 2, Worker: "decode-0", Host: "d", Role: "decode"}
	r, err := logmetric.Read(strings.NewReader(log), src, time.UTC, Generator{})
	if err != nil {
		t.Fatal(err)
	}
	origin := time.Date(2026, 9, 17, 10, 58, 31, 0, time.UTC).UnixNano()
	at := func(s float64) int64 { return origin + int64(s*1e9) }
	run := r.Clip(at(0), at(10))
	find := func(name string) *logmetric.Series {
		for i := range run.Series {
			if run.Series[i].Definition.Name == name {
				return &run.Series[i]
			}
		}
		t.Fatalf("no %s", name)
		return nil
	}
	limit := find(DecodeRequestLimit)
	if p := limit.Points[0]; p.TimeNS != at(-1) || p.Value != 8 || p.Line != 1 {
		t.Errorf("limit held from before the window: %+v", p)
	}
	summarize := func(name string, from, to float64) string {
		s := find(name)
		var ref *logmetric.Series
		if s.Reference.Series >= 0 {
			ref = &run.Series[s.Reference.Series]
		}
		c := logmetric.SummarizeCapacity(s, ref, at(from), at(to))
		usage := "-"
		if c.HasUsage {
			usage = logmetric.FormatPercent(c.HighestUsage)
		}
		return fmt.Sprintf("peak %s limit %s usage %s unavailable %d/%d",
			logmetric.FormatQuantity(c.Peak), c.LimitText(), usage, c.Unavailable, c.Samples)
	}
	tests := []struct {
		name, metric string
		from, to     float64
		want         string
	}{
		{"run", ActiveDecodeRequests, 0, 10, "peak 6 limit 8 usage 75% unavailable 1/3"},
		{"zoom", ActiveDecodeRequests, 0, 3, "peak 4 limit 8 usage 50% unavailable 0/1"},
		{"after the restart", ActiveDecodeRequests, 6.5, 10, "peak 2 limit unavailable usage - unavailable 1/1"},
		{"pages against the same snapshot's pool", ActiveKVPages, 0, 10, "peak 32 limit 128 usage 25% unavailable 0/2"},
	}
	for _, tc := range tests {
		if got := summarize(tc.metric, tc.from, tc.to); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestLimitOnlyOnDecodeAndAggWorkers(t *testing.T) {
	line := "[2026-09-17 10:58:30,000  ATTN TP RANK 0] - INFO - Scheduler config: max_batch_size=8\n"
	for role, want := range map[string]int{"prefill": 0, "decode": 1, "agg": 1} {
		r, err := logmetric.Read(strings.NewReader(line), logmetric.SourceInfo{Path: "x", Role: role}, time.UTC, Generator{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Series) != want || r.Window != nil {
			t.Errorf("%s: %d series, window %v; want %d series and no window", role, len(r.Series), r.Window, want)
		}
	}
}
