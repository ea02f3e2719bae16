package lifecycle

import (
	"testing"

	"github.com/dsight/dsight/internal/model"
)

func TestActivity(t *testing.T) {
	role := func(r string) model.Attributes {
		return model.Attributes{{Key: "dynamo.operation.role", Value: model.StringValue(r)}}
	}
	tests := []struct {
		name        string
		attrs       model.Attributes
		label, kind string
		ok          bool
	}{
		{"request.preprocessing", role("frontend"), "Preprocessing", "activity", true},
		{"kv_router.select_worker", role("frontend"), "Router selection", "activity", true},
		{"kv_router.select_worker", model.Attributes{{Key: "phase", Value: model.StringValue("Decode")}}, "Decode selection", "activity", true},
		{"kv_router.select_worker", model.Attributes{{Key: "phase", Value: model.StringValue("PREFILL")}}, "Prefill selection", "activity", true},
		{"worker.admission", role("prefill"), "Prefill ingress and transport setup", "activity", true},
		{"worker.admission", role("aggregated"), "Agg ingress and transport setup", "activity", true},
		{"worker.admission", nil, "Unknown ingress and transport setup", "activity", true},
		{"worker.operation.prefill", role("prefill"), "Prefill operation", "envelope", true},
		{"worker.operation.decode", role("DECODE"), "Decode operation", "envelope", true},
		{"worker.operation.encode", role("encode"), "Encode operation", "envelope", true},
		{"request.dispatch", role("decode"), "Decode backend stream creation", "activity", true},
		{"response.streaming.decode", role("decode"), "Decode response pump", "activity", true},
		{"response.streaming.worker", role("worker"), "Worker response pump", "activity", true},
		{"response.streaming", role("frontend"), "Frontend response stream", "concurrent", true},
		// Not in the vocabulary.
		{"worker.operation", role("decode"), "", "", false},
		{"request.lifecycle", role("frontend"), "", "", false},
		{"kv_router.route_request", role("frontend"), "", "", false},
		{"router.selection", role("frontend"), "", "", false},
		{"http-request", nil, "", "", false},
		{"response.streamingx", nil, "", "", false},
		{"", nil, "", "", false},
	}
	for _, tt := range tests {
		label, kind, ok := ActivityLabel(tt.name, tt.attrs)
		if label != tt.label || kind != tt.kind || ok != tt.ok {
			t.Errorf("ActivityLabel(%q, %v) = %q, %q, %v; want %q, %q, %v", tt.name, tt.attrs, label, kind, ok, tt.label, tt.kind, tt.ok)
		}
		if desc := ActivityDescription(tt.name); (desc != "") != tt.ok {
			t.Errorf("ActivityDescription(%q) = %q", tt.name, desc)
		}
	}
}

func TestActivityForExplicitContext(t *testing.T) {
	label, kind, ok := ActivityFor("kv_router.select_worker", "frontend", "decode")
	if label != "Decode selection" || kind != KindActivity || !ok {
		t.Errorf("got %q %q %v", label, kind, ok)
	}
	if label, _, _ := ActivityFor("request.dispatch", "", ""); label != " backend stream creation" {
		t.Errorf("empty role label %q", label)
	}
}
