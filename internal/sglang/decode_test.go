package sglang

import (
	"errors"
	"fmt"
	"github.com/dsight/dsight/internal/logmetric/logmetrictest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
)

// render prints an observation compactly: time/digits rank labels name=value…
func render(obs logmetric.Observation) string {
	var b strings.Builder
	s := obs.Time
	fmt.Fprintf(&b, "%04d-%02d-%02d %02d:%02d:%02d.%09d/%d %s", s.Year, s.Month, s.Day, s.Hour, s.Minute, s.Second, s.Nanosecond, s.FracDigits, obs.Rank)
	for _, l := range obs.Labels {
		fmt.Fprintf(&b, " %s=%s", l.Key, l.Value)
	}
	b.WriteString(" |")
	for _, v := range obs.Values {
		fmt.Fprintf(&b, " %s=%v", strings.TrimPrefix(v.Name, namePrefix), v.Number)
	}
	return b.String()
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, line, want string // want "" = not decoded
	}{
		// Prefixes.
		{"no rank prefix, seconds", "[2026-04-05 20:02:51] Decode batch, #running-req: 32",
			"2026-04-05 20:02:51.000000000/0 - phase=decode | running_requests=32"},
		{"DP TP EP with ms", "[2026-09-24 01:47:50.615 DP3 TP3 EP3] Prefill batch [1], #new-seq: 1",
			"2026-09-24 01:47:50.615000000/3 dp:3 phase=prefill tp=3 ep=3 | new_sequences=1"},
		{"TP only is not a DP rank", "[2026-04-08 14:05:21 TP0] Decode batch, #running-req: 5",
			"2026-04-08 14:05:21.000000000/0 - phase=decode tp=0 | running_requests=5"},
		{"every rank name", "[2026-05-19 00:32:51.25 DP1 PP0 ATTN_CP1 MOE_DP2 TP3 EP4] Decode batch, #queue-req: 1",
			"2026-05-19 00:32:51.250000000/2 dp:1 phase=decode pp=0 attn_cp=1 moe_dp=2 tp=3 ep=4 | queued_requests=1"},
		{"ranks in another order", "[2026-05-19 00:32:51 TP3 DP1] Decode batch, #queue-req: 1",
			"2026-05-19 00:32:51.000000000/0 dp:1 phase=decode tp=3 | queued_requests=1"},
		{"multi-digit and padded ranks keep their text", "[2026-05-19 00:32:51 DP031 TP007] Decode batch, #queue-req: 1",
			"2026-05-19 00:32:51.000000000/0 dp:31 phase=decode tp=007 | queued_requests=1"},
		{"ANSI colour before the prefix", "\x1b[32m[2026-05-10 12:00:11.896 DP1] Decode batch, #queue-req: 0\x1b[0m",
			"2026-05-10 12:00:11.896000000/3 dp:1 phase=decode | queued_requests=0"},
		{"progress output before the prefix", "50%|█████ [00:01<00:01]\r[2026-05-10 12:00:11 TP1] Decode batch, #queue-req: 0",
			"2026-05-10 12:00:11.000000000/0 - phase=decode tp=1 | queued_requests=0"},
		{"repeated rank name", "[2026-05-10 12:00:12 DP1 TP1 DP2] Decode batch, #running-req: 1", ""},
		{"rank without digits", "[2026-05-10 12:00:12 DP] Decode batch, #running-req: 1", ""},
		{"rank index too long", "[2026-05-10 12:00:12 DP1234567890] Decode batch, #running-req: 1", ""},
		{"unknown rank name", "[2026-05-10 12:00:12 XP1] Decode batch, #running-req: 1", ""},
		{"lower-case rank", "[2026-05-10 12:00:12 dp1] Decode batch, #running-req: 1", ""},
		{"ISO timestamp", "[2026-05-10T12:00:12] Decode batch, #running-req: 1", ""},
		{"comma fraction", "[2026-05-10 12:00:12,123] Decode batch, #running-req: 1", ""},
		{"no space after bracket", "[2026-05-10 12:00:12]Decode batch, #running-req: 1", ""},
		{"Dynamo-wrapped", "p0\x1b[2m2026-04-27T23:03:15.250907Z\x1b[0m  INFO sglang: Prefill batch, #new-seq: 1", ""},

		// Batch message generations.
		{"period style", "[2025-02-27 04:37:29 TP0] Decode batch. #running-req: 8, #token: 67724, token usage: 0.13, gen throughput (token/s): 183.54, #queue-req: 0",
			"2025-02-27 04:37:29.000000000/0 - phase=decode tp=0 | decode_tokens=67724 generation_throughput_tokens_per_second=183.54 running_requests=8 queued_requests=0 token_usage=0.13"},
		{"trailing comma-space and largest-len", "[2025-03-24 02:56:41 TP0] Decode batch. #running-req: 32, #token: 7352, token usage: 0.01, accept len: 2.54, gen throughput (token/s): 39.33, largest-len: 0, #queue-req: 68, ",
			"2025-03-24 02:56:41.000000000/0 - phase=decode tp=0 | decode_tokens=7352 accept_length=2.54 generation_throughput_tokens_per_second=39.33 running_requests=32 queued_requests=68 token_usage=0.01"},
		{"trailing comma", "[2025-11-04 05:31:43 DP0] Prefill batch, #new-seq: 18, input throughput (token/s): 0.00,",
			"2025-11-04 05:31:43.000000000/0 dp:0 phase=prefill | new_sequences=18 input_throughput_tokens_per_second=0"},
		{"counter with period", "[2025-11-04 05:31:43] Decode batch [7]. #running-req: 1", "2025-11-04 05:31:43.000000000/0 - phase=decode | running_requests=1"},
		{"bad counter", "[2025-11-04 05:31:43] Decode batch [x], #running-req: 1", ""},
		{"no separator after batch", "[2025-11-04 05:31:43] Decode batch #running-req: 1", ""},
		{"Mix batch", "[2025-11-04 05:31:43] Mix batch, #running-req: 1", ""},
		{"batch without fields", "[2025-11-04 05:31:43] Decode batch, ", ""},
		{"every decode field", "[2026-09-24 01:50:43.001 DP0 TP0 EP0] Decode batch [40], #running-req: 1, #token: 532160, token usage: 0.19, accept len: 4.40, accept rate: 0.68, pre-allocated usage: 0.18, #prealloc-req: 0, #transfer-req: 22, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 11.87, #queue-req: 0",
			"2026-09-24 01:50:43.001000000/3 dp:0 phase=decode tp=0 ep=0 | decode_tokens=532160 preallocated_requests=0 transfer_requests=22 retracted_requests=0 accept_length=4.4 accept_rate=0.68 preallocated_usage=0.18 generation_throughput_tokens_per_second=11.87 running_requests=1 queued_requests=0 token_usage=0.19 cuda_graph_enabled=1"},
		{"every prefill field", "[2026-09-24 01:47:50.615 DP3 TP3 EP3] Prefill batch [1], #new-seq: 1, #new-token: 64, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, #bootstrap-req: 0, #inflight-req: 1, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 7.29",
			"2026-09-24 01:47:50.615000000/3 dp:3 phase=prefill tp=3 ep=3 | new_sequences=1 new_tokens=64 cached_tokens=0 pending_tokens=0 bootstrap_requests=0 inflight_requests=1 optimistic_requests=0 input_throughput_tokens_per_second=7.29 running_requests=0 queued_requests=0 token_usage=0 cuda_graph_enabled=0"},
		{"fields of the other phase are ignored", "[2026-01-01 00:00:00] Prefill batch, #token: 5, #prealloc-req: 1, accept len: 2.0, gen throughput (token/s): 1.0, #new-seq: 2",
			"2026-01-01 00:00:00.000000000/0 - phase=prefill | new_sequences=2"},
		{"decode ignores prefill fields", "[2026-01-01 00:00:00] Decode batch, #new-seq: 5, #cached-token: 1, input throughput (token/s): 3.0, #running-req: 2",
			"2026-01-01 00:00:00.000000000/0 - phase=decode | running_requests=2"},
		{"invalid values create no point", "[2026-01-01 00:00:00] Decode batch, #running-req: x, #token: -5, #queue-req: 1.0, token usage: nan, accept len: 1e999, accept rate: .5, cuda graph: true, gen throughput (token/s): 1.5e1, #retracted-req: ٣",
			"2026-01-01 00:00:00.000000000/0 - phase=decode | accept_rate=0.5 generation_throughput_tokens_per_second=15"},
		{"only invalid values", "[2026-01-01 00:00:00] Decode batch, #running-req: x, cuda graph: yes", ""},
		{"repeated field is ambiguous", "[2026-01-01 00:00:00] Decode batch, #running-req: 4, #running-req: 5, #queue-req: 0",
			"2026-01-01 00:00:00.000000000/0 - phase=decode | queued_requests=0"},
		{"hybrid pool fields are not mapped", "[2026-08-23 09:05:55 TP0 EP0] Decode batch, #running-req: 1, #full token: 300, full token usage: 0.01, #swa token: 200, swa token usage: 0.01, mamba usage: 0.05, cpu graph: True, #queue-req: 0",
			"2026-08-23 09:05:55.000000000/0 - phase=decode tp=0 ep=0 | running_requests=1 queued_requests=0"},
		{"count above 2^53", "[2026-01-01 00:00:00] Decode batch, #token: 9007199254740993, #running-req: 1",
			"2026-01-01 00:00:00.000000000/0 - phase=decode | running_requests=1"},
		{"uvicorn access line", `[2026-04-05 20:02:51] INFO:     127.0.0.1:40052 - "POST /v1/chat/completions HTTP/1.1" 200 OK`, ""},

		// ReqTimeStats.
		{"request prefill, key=value with space units", "[2026-09-24 01:47:50.616 DP3 TP3 EP3] ReqTimeStats(rid=request-one, bootstrap_room=3, input_len=4, cached_input_len=0, output_len=1, attempts=0, type=prefill): bootstrap_duration=0.32ms, queue_duration=0.41ms, forward_duration=8348.19ms, entry_time=1790239662.267, transfer_speed=0.00 GB/s, transfer_total=0.00 MB",
			"2026-09-24 01:47:50.616000000/3 dp:3 phase=prefill tp=3 ep=3 | request_input_tokens=4 request_cached_input_tokens=0 request_uncached_input_tokens=4 request_cached_input_fraction=0 request_bootstrap_duration_ms=0.32 request_queue_duration_ms=0.41 request_forward_duration_ms=8348.19 request_transfer_speed_gib_per_second=0 request_transfer_total_mib=0"},
		{"request decode", "[2026-09-24 01:50:40.600 DP2 TP2 EP2] ReqTimeStats(rid=request-decode, bootstrap_room=4, input_len=16956, cached_input_len=0, output_len=19, attempts=0, type=decode): bootstrap_duration=9.05ms, alloc_wait_duration=11.50ms, transfer_duration=22297.77ms, queue_duration=0.71ms, forward_duration=1321.16ms, entry_time=1790239816.960",
			"2026-09-24 01:50:40.600000000/3 dp:2 phase=decode tp=2 ep=2 | request_input_tokens=16956 request_cached_input_tokens=0 request_uncached_input_tokens=16956 request_cached_input_fraction=0 request_bootstrap_duration_ms=9.05 request_queue_duration_ms=0.71 request_forward_duration_ms=1321.16 request_allocation_wait_duration_ms=11.5 request_transfer_duration_ms=22297.77"},
		{"request key=value bootstrap queue", "[2026-01-01 00:00:03] ReqTimeStats(rid=r, input_len=64, cached_input_len=16, output_len=1, type=prefill): bootstrap_queue_duration=25.50ms, queue_duration=2.00ms, forward_duration=10.00ms",
			"2026-01-01 00:00:03.000000000/0 - phase=prefill | request_input_tokens=64 request_cached_input_tokens=16 request_uncached_input_tokens=48 request_cached_input_fraction=0.25 request_bootstrap_queue_duration_ms=25.5 request_queue_duration_ms=2 request_forward_duration_ms=10"},
		{"request newest prefill with breakdown", "[2026-01-01 00:00:03 TP0] ReqTimeStats(rid=r, bootstrap_room=7, input_len=100, cached_input_len=40, output_len=1, attempts=0, type=prefill): bootstrap_queue_duration(12.00ms) = bootstrap(10.00ms) + alloc_wait(2.00ms); queue_duration=1.50ms, forward_duration=30.00ms, start=123.456, transfer_speed=1.25GB/s, transfer_total=32.00MB, #retries=0",
			"2026-01-01 00:00:03.000000000/0 - phase=prefill tp=0 | request_input_tokens=100 request_cached_input_tokens=40 request_uncached_input_tokens=60 request_cached_input_fraction=0.4 request_bootstrap_duration_ms=10 request_queue_duration_ms=1.5 request_forward_duration_ms=30 request_allocation_wait_duration_ms=2 request_transfer_speed_gib_per_second=1.25 request_transfer_total_mib=32"},
		{"request newest prefill pending bootstrap", "[2026-01-01 00:00:04] ReqTimeStats(rid=r, input_len=64, cached_input_len=0, output_len=1, attempts=0, type=prefill): bootstrap_queue_duration(25.50ms) queue_duration=2.00ms, forward_duration=10.00ms, start=1.0, transfer_speed=0.00GB/s, transfer_total=0.00MB, #retries=1",
			"2026-01-01 00:00:04.000000000/0 - phase=prefill | request_input_tokens=64 request_cached_input_tokens=0 request_uncached_input_tokens=64 request_cached_input_fraction=0 request_bootstrap_queue_duration_ms=25.5 request_queue_duration_ms=2 request_forward_duration_ms=10 request_transfer_speed_gib_per_second=0 request_transfer_total_mib=0"},
		{"request newest decode with breakdown", "[2026-01-01 00:00:05 DP0] ReqTimeStats(rid=r, input_len=100, cached_input_len=0, output_len=128, type=decode): prealloc_queue_duration(12.50ms) = bootstrap(10.00ms) + alloc_wait(2.50ms); transfer_duration=32.00ms; queue_duration=1.00ms, forward_duration=800.00ms, start=200.000",
			"2026-01-01 00:00:05.000000000/0 dp:0 phase=decode | request_input_tokens=100 request_cached_input_tokens=0 request_uncached_input_tokens=100 request_cached_input_fraction=0 request_bootstrap_duration_ms=10 request_queue_duration_ms=1 request_forward_duration_ms=800 request_allocation_wait_duration_ms=2.5 request_transfer_duration_ms=32"},
		{"request newest decode pending", "[2026-01-01 00:00:06] ReqTimeStats(rid=r, input_len=64, cached_input_len=0, output_len=1, type=decode): prealloc_queue_duration(7.00ms) transfer_duration=0.00ms; queue_duration=0.00ms, forward_duration=0.00ms, start=0.000",
			"2026-01-01 00:00:06.000000000/0 - phase=decode | request_input_tokens=64 request_cached_input_tokens=0 request_uncached_input_tokens=64 request_cached_input_fraction=0 request_preallocation_queue_duration_ms=7 request_queue_duration_ms=0 request_forward_duration_ms=0 request_transfer_duration_ms=0"},
		{"request unified type", "[2026-01-01 00:00:07] ReqTimeStats(rid=r, input_len=6, cached_input_len=0, output_len=16, attempts=1, type=unified): queue_duration=12.34ms, forward_duration=245.67ms, start_time=1.5", ""},
		{"request capitalised type", "[2026-01-01 00:00:07] ReqTimeStats(rid=r, input_len=6, type=Decode): queue_duration=1.00ms", ""},
		{"request type logged twice", "[2026-01-01 00:00:07] ReqTimeStats(rid=r, type=prefill, type=decode): queue_duration=1.00ms", ""},
		{"request without type", "[2026-01-01 00:00:07] ReqTimeStats(rid=r, input_len=6): queue_duration=1.00ms", ""},
		{"request without fields", "[2026-01-01 00:00:07] ReqTimeStats(rid=r, type=prefill): entry_time=1.0", ""},
		{"request unterminated meta", "[2026-01-01 00:00:07] ReqTimeStats(rid=r, input_len=6, type=prefill", ""},
		{"zero input: fraction unknown", "[2026-01-01 00:00:09] ReqTimeStats(rid=r, input_len=0, cached_input_len=0, type=prefill): queue_duration=0.00ms",
			"2026-01-01 00:00:09.000000000/0 - phase=prefill | request_input_tokens=0 request_cached_input_tokens=0 request_uncached_input_tokens=0 request_queue_duration_ms=0"},
		{"cached above input: nothing derived", "[2026-01-01 00:00:10] ReqTimeStats(rid=r, input_len=10, cached_input_len=12, type=decode): forward_duration=5ms",
			"2026-01-01 00:00:10.000000000/0 - phase=decode | request_input_tokens=10 request_cached_input_tokens=12 request_forward_duration_ms=5"},
		{"invalid counts and durations", "[2026-01-01 00:00:11] ReqTimeStats(rid=r, input_len=8, cached_input_len=x, type=prefill): bootstrap_duration=3.00ms, queue_duration=-1.00ms, forward_duration=2.00 ms, transfer_duration=1.0s, transfer_speed=1.0 GiB/s, transfer_total=3 MB",
			"2026-01-01 00:00:11.000000000/0 - phase=prefill | request_input_tokens=8 request_bootstrap_duration_ms=3 request_transfer_total_mib=3"},
		{"repeated duration is ambiguous", "[2026-01-01 00:00:12] ReqTimeStats(rid=r, type=decode): queue_duration=1.00ms, queue_duration=2.00ms, forward_duration=3.00ms",
			"2026-01-01 00:00:12.000000000/0 - phase=decode | request_forward_duration_ms=3"},
		{"breakdown and key=value of one stage are ambiguous", "[2026-01-01 00:00:12] ReqTimeStats(rid=r, type=decode): prealloc_queue_duration(3.00ms) = bootstrap(1.00ms) + alloc_wait(2.00ms); bootstrap_duration=1.00ms, forward_duration=3.00ms",
			"2026-01-01 00:00:12.000000000/0 - phase=decode | request_forward_duration_ms=3 request_allocation_wait_duration_ms=2"},
		{"quoted rid", "[2026-01-01 00:00:12] ReqTimeStats(rid='a, b=c', input_len=6, cached_input_len=0, type=prefill): queue_duration=12.34ms",
			"2026-01-01 00:00:12.000000000/0 - phase=prefill | request_input_tokens=6 request_cached_input_tokens=0 request_uncached_input_tokens=6 request_cached_input_fraction=0 request_queue_duration_ms=12.34"},
		{"custom logging prefix", "[Scheduler] ReqTimeStats(rid='r', input_len=6, cached_input_len=0, output_len=16, attempts=1, type=prefill): queue_duration=12.34ms", ""},

		// Other engines.
		{"TokenSpeed batch", "[2026-09-17 10:58:33,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 4, #pages(active/cached/total): 8/16/4096", ""},
		{"TRT-LLM iteration", "[TRT-LLM] iter = 12588, global_rank = 0, rank = 0, num_scheduled_requests = 18, kv_cache_util = 0.08, host_step_time = 29.9ms, prev_device_step_time = 28.6ms, timestamp = 2026-09-17 10:58:33", ""},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs, ok, err := Generator{}.Decode([]byte(tc.line))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			got := ""
			if ok {
				got = render(obs)
				want := strings.Fields(tc.want)
				// Labels are compared in logged order, values in catalog order.
				if gotF := strings.Fields(got); !slices.Equal(gotF, want) {
					t.Errorf("got  %s\nwant %s", got, tc.want)
				}
				return
			}
			if tc.want != "" {
				t.Errorf("not decoded, want %s", tc.want)
			}
		})
	}
}

func TestDecodeImpossibleDateIsAnError(t *testing.T) {
	_, _, err := Generator{}.Decode([]byte("[2026-02-30 00:00:00 DP0] Decode batch, #running-req: 1"))
	if !errors.Is(err, logmetric.ErrInvalidStamp) {
		t.Fatalf("err = %v, want ErrInvalidStamp", err)
	}
	// The same date on a line without a recognised record is just ignored.
	if _, ok, err := (Generator{}).Decode([]byte("[2026-02-30 00:00:00] INFO: hello")); ok || err != nil {
		t.Errorf("unrecognised line: ok=%v err=%v", ok, err)
	}
}

func TestDefinitions(t *testing.T) {
	defs := Generator{}.Definitions()
	want := []struct{ suffix, unit string }{
		{"new_sequences", "requests"}, {"new_tokens", "tokens"}, {"cached_tokens", "tokens"},
		{"pending_tokens", "tokens"}, {"bootstrap_requests", "requests"}, {"inflight_requests", "requests"}, {"optimistic_requests", "requests"},
		{"input_throughput_tokens_per_second", "tokens/s"},
		{"decode_tokens", "tokens"}, {"preallocated_requests", "requests"}, {"transfer_requests", "requests"}, {"retracted_requests", "requests"},
		{"accept_length", "tokens"}, {"accept_rate", "ratio"}, {"preallocated_usage", "ratio"}, {"generation_throughput_tokens_per_second", "tokens/s"},
		{"running_requests", "requests"}, {"queued_requests", "requests"}, {"token_usage", "ratio"}, {"cuda_graph_enabled", "boolean"},
		{"request_input_tokens", "tokens"}, {"request_cached_input_tokens", "tokens"}, {"request_uncached_input_tokens", "tokens"},
		{"request_cached_input_fraction", "ratio"},
		{"request_bootstrap_duration_ms", "ms"}, {"request_bootstrap_queue_duration_ms", "ms"}, {"request_preallocation_queue_duration_ms", "ms"},
		{"request_queue_duration_ms", "ms"}, {"request_forward_duration_ms", "ms"},
		{"request_allocation_wait_duration_ms", "ms"}, {"request_transfer_duration_ms", "ms"},
		{"request_transfer_speed_gib_per_second", "GiB/s"}, {"request_transfer_total_mib", "MiB"},
	}
	if len(defs) != len(want) {
		t.Fatalf("%d definitions, want %d", len(defs), len(want))
	}
	for i, d := range defs {
		if d.Name != "log_sglang_"+want[i].suffix || d.Unit != want[i].unit {
			t.Errorf("definition %d = %s (%s), want log_sglang_%s (%s)", i, d.Name, d.Unit, want[i].suffix, want[i].unit)
		}
		if d.Temporal != logmetric.TemporalEvent || d.Reference != "" || d.Roles != 0 {
			t.Errorf("%s: temporal %v reference %q roles %v", d.Name, d.Temporal, d.Reference, d.Roles)
		}
		if strings.Contains(d.Name, "hit_rate") {
			t.Errorf("%s: no cache hit rate is derived", d.Name)
		}
	}
	for _, derived := range []string{"log_sglang_request_uncached_input_tokens", "log_sglang_request_cached_input_fraction"} {
		i := slices.IndexFunc(defs, func(d logmetric.Definition) bool { return d.Name == derived })
		if !strings.Contains(defs[i].Title, "(derived)") || !strings.HasPrefix(defs[i].Description, "Derived:") {
			t.Errorf("%s is not labelled derived: %q / %q", derived, defs[i].Title, defs[i].Description)
		}
	}
	if _, err := logmetric.Catalog(Generator{}); err != nil {
		t.Errorf("catalog: %v", err)
	}
	defs[0].Name = "changed"
	if (Generator{}).Definitions()[0].Name == "changed" {
		t.Errorf("Definitions exposes the generator's own slice")
	}
}

func TestReadWithoutTimezone(t *testing.T) {
	path := "testdata/node-a_prefill_w0.out"
	in := strings.NewReader("[2026-01-01 00:00:00.000 DP0] Prefill batch [1], #new-seq: 3\n" +
		"[2026-01-01 00:00:01.000 DP0] ReqTimeStats(rid=a, input_len=4, cached_input_len=0, type=prefill): queue_duration=1.00ms\n")
	r, err := logmetric.Read(in, logmetrictest.SourceFor(path), nil, Generator{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Series) != 0 || r.Unaligned != 2 || !slices.Equal(r.Warnings, []string{logmetric.WarnNeedTimezone}) || r.Window != nil {
		t.Errorf("without timezone: %d series, %d unaligned, warnings %q, window %v", len(r.Series), r.Unaligned, r.Warnings, r.Window)
	}
	// With a timezone the same lines align: 00:00 in UTC+9 is 15:00 UTC the day before.
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip(err)
	}
	in.Seek(0, 0)
	r, err = logmetric.Read(in, logmetrictest.SourceFor(path), tokyo, Generator{})
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Unix(0, r.Series[0].Points[0].TimeNS).UTC(); !got.Equal(time.Date(2025, 12, 31, 15, 0, 0, 0, time.UTC)) {
		t.Errorf("aligned time = %v", got)
	}
}
