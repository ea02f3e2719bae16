package importer

import (
	"slices"
	"strings"
	"testing"
)

// A decode worker whose log records no binding or engine id map for the
// request is named only by the request's OTel decode span (host and role,
// matched to the decode worker log's name). Without OTel the request cannot
// know it: it keeps its prefill worker and the build says, counted with the
// first client row, that its decode worker is unknown, never silently.
func TestDecodeWorkerUnknownWithoutOTelIsCounted(t *testing.T) {
	run := writeRun(t)
	// The decode log keeps only an iteration record: no engine id map.
	write(t, run, map[string]string{"logs/decode-host_decode_w0.out": "[TRT-LLM] iter = 12588, global_rank = 0, rank = 0, num_scheduled_requests = 18, kv_cache_util = 0.08, host_step_time = 29.9ms, prev_device_step_time = 28.6ms, timestamp = 2026-09-17 10:58:33\n"})
	const warning = "1 request(s) the server saw name no decode worker"
	const first = "(first: logs/agentic/conc_2/aiperf_artifacts/profile_export.jsonl:1)"

	res, err := Import(Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if s := d.Requests[0].Server; s == nil || !slices.Contains(s.Workers, "decode-0") {
		t.Fatalf("with OTel the decode span names decode-0: %+v", s)
	}
	if d.Audit["requests_without_decode_worker"] != 0 {
		t.Fatalf("with OTel: %d requests without a decode worker", d.Audit["requests_without_decode_worker"])
	}

	res, err = Import(Options{Run: run, NoOTel: true})
	if err != nil {
		t.Fatal(err)
	}
	d = res.Dataset
	if s := d.Requests[0].Server; s == nil || !slices.Equal(s.Workers, []string{"prefill-0"}) {
		t.Fatalf("without OTel: %+v", s)
	}
	if d.Audit["requests_without_decode_worker"] != 1 {
		t.Fatalf("without OTel: requests_without_decode_worker = %d, want 1", d.Audit["requests_without_decode_worker"])
	}
	found := false
	for _, w := range d.Meta.Warnings {
		found = found || strings.HasPrefix(w, warning) && strings.HasSuffix(w, first)
	}
	if !found {
		t.Fatalf("no warning %q … %q in %q", warning, first, d.Meta.Warnings)
	}

	// The decode log's engine id map names the worker without OTel: no
	// warning.
	res, err = Import(Options{Run: writeRun(t), NoOTel: true})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Dataset.Requests[0].Server; res.Dataset.Audit["requests_without_decode_worker"] != 0 || s == nil || !slices.Contains(s.Workers, "decode-0") {
		t.Fatalf("engine id map: audit %d, %+v", res.Dataset.Audit["requests_without_decode_worker"], s)
	}
}
