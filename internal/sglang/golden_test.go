package sglang

import (
	"bytes"
	"github.com/dsight/dsight/internal/logmetric/logmetrictest"
	"os"
	"testing"
)

func TestGolden(t *testing.T) { logmetrictest.Golden(t, Generator{}) }

func fixtures(t testing.TB) []string { return logmetrictest.Fixtures(t) }

// TestTRTLLMLinesIgnored: TRT-LLM iteration logs are outside the log metric
// scope; every line must decode to nothing, without error.
func TestTRTLLMLinesIgnored(t *testing.T) {
	in, err := os.ReadFile("testdata/trtllm_pr-6683_iter-log-elapsed-time.log")
	if err != nil {
		t.Fatal(err)
	}
	extra := "[TRT-LLM] iter = 12588, global_rank = 0, rank = 0, num_scheduled_requests = 18, kv_cache_util = 0.08, host_step_time = 29.9ms, prev_device_step_time = 28.6ms, timestamp = 2026-09-17 10:58:33\n" +
		"2026-09-17T10:58:33.230Z Engine ID map: request_id=22222222-2222-4222-8222-222222222222 trtllm_client_id=7 disagg_request_id=99\n"
	for i, line := range bytes.Split(append(in, extra...), []byte("\n")) {
		if obs, ok, err := (Generator{}).Decode(line); ok || err != nil {
			t.Errorf("line %d: decoded %+v, %v", i+1, obs, err)
		}
	}
}

// firstDiff describes the first line where got and want differ.
