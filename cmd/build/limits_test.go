package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// One OTel attribute longer than any evidence chunk its readers accept is
// cut to the catalog's bound with a label, so the build publishes a report
// its own readers answer from: the request that owns the span is read back
// through the CLI (it failed with "stored server evidence chunk: size …
// outside 0..67108864").
func TestOversizedAttributeIsTruncatedAndReadable(t *testing.T) {
	needAssets(t)
	run := lifecycleRun(t)
	big := strings.Repeat("a", 65<<20)
	span := `{"spanId":"big1","traceId":"1234567890abcdef1234567890abcdef","parentSpanId":"root","name":"big.attribute","startTimeUnixNano":"1789642711200000000","endTimeUnixNano":"1789642711300000000","attributes":[{"key":"dynamo.request.id","value":{"stringValue":"22222222-2222-4222-8222-222222222222"}},{"key":"blob","value":{"stringValue":"` + big + `"}}]}`
	appendFile(t, filepath.Join(run, "logs/otel/collector/traces.jsonl"), `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"dynamo"}}]},"scopeSpans":[{"spans":[`+span+`]}]}]}`+"\n")
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", run, "-o", out); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	code, stdout, stderr := dsight(t, "query", out, "request", "--id", "11111111-1111-4111-8111-111111111111")
	if code != 0 {
		t.Fatalf("the report's reader refuses it: %s", stderr)
	}
	if !strings.Contains(stdout, `"name": "big.attribute"`) {
		t.Fatalf("request answer lacks the span: %.400s", stdout)
	}
}
