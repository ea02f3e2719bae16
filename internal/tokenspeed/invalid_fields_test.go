package tokenspeed

import (
	"strings"
	"testing"
)

// Every field that becomes a metric or a snapshot counter says why a value
// that fails validation was not kept: max_batch_size of a configuration
// (the metric generator) and every counter and decimal of a batch snapshot
// (DecodeSnapshot, read into batch observations).
func TestEveryConvertedFieldSaysWhy(t *testing.T) {
	const stamp = "[2026-09-17 10:58:39,230  ATTN TP RANK 0] - INFO - "
	for _, tc := range []struct{ msg, dropped string }{
		{"Scheduler config: num_device_pages=65 max_batch_size=nan (global max_num_seqs=4)", `max_batch_size has a value that fails validation ("nan")`},
		{"Scheduler config: num_device_pages=65 max_batch_size=-4 (global max_num_seqs=4)", `max_batch_size has a value that fails validation ("-4")`},
		{"Scheduler config: max_batch_size=99999999999999999999 (global max_num_seqs=4)", "max_batch_size has a value"},
	} {
		obs, _, err := Generator{}.Decode([]byte(stamp + tc.msg))
		if err != nil || obs.Dropped != tc.dropped && !strings.HasPrefix(obs.Dropped, tc.dropped) {
			t.Errorf("%s: dropped %q (err %v), want %q", tc.msg, obs.Dropped, err, tc.dropped)
		}
	}
	if obs, _, _ := (Generator{}).Decode([]byte(stamp + "Scheduler config: max_batch_size=4 (global max_num_seqs=4)")); obs.Dropped != "" {
		t.Errorf("valid configuration dropped %q", obs.Dropped)
	}
	for _, tc := range []struct{ fields, dropped string }{
		{"Prefill batch. #running-req: 1, #queue-req: nan, #new-seq: 1", "#queue-req has a value"},
		{"Prefill batch. #running-req: 1, #new-seq: -1", "#new-seq has a value"},
		{"Prefill batch. #running-req: 1, #new-token: 99999999999999999999", "#new-token has a value"},
		{"Prefill batch. #running-req: 1, #cached-token: 2.5", "#cached-token has a value"},
		{"Prefill batch. #running-req: nan", "#running-req has a value"},
		{"Decode batch. #running-req: 2, page ratio: nan", `page ratio has a value that fails validation ("nan")`},
		{"Decode batch. #running-req: 2, gen throughput (token/s): -3.0", "gen throughput (token/s) has a value"},
		{"Decode batch. #running-req: 2, avg_accept_len: 1e400", "avg_accept_len has a value"},
		{"Decode batch. #running-req: 2, accept_rate: inf", "accept_rate has a value"},
	} {
		s, ok, err := DecodeSnapshot([]byte(stamp + tc.fields))
		if err != nil || !ok || !strings.HasPrefix(s.Dropped, tc.dropped) {
			t.Errorf("%s: dropped %q (ok %v, err %v), want %q", tc.fields, s.Dropped, ok, err, tc.dropped)
		}
	}
	if s, _, _ := DecodeSnapshot([]byte(stamp + "Decode batch. #running-req: 2, #queue-req: 0, #pages(active/cached/total): 6/1/64, page ratio: 0.09, gen throughput (token/s): 3.1, avg_accept_len: 1.00, accept_rate: 0.00")); s.Dropped != "" {
		t.Errorf("valid snapshot dropped %q", s.Dropped)
	}
}
