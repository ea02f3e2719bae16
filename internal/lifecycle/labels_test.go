package lifecycle

import (
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// The labels of the roles and phases spans record are built once: reading
// one allocates nothing, and every label reads as it was built before,
// for those spellings and for others.
func TestActivityLabelsOfKnownRolesAreBuiltOnce(t *testing.T) {
	names := []string{"request.preprocessing", "kv_router.select_worker", "worker.admission", "worker.operation.prefill",
		"request.dispatch", "response.streaming.prefill", "response.streaming", "other"}
	roles := []string{model.RolePrefill, model.RoleDecode, model.RoleAgg, "unknown", "PREFILL", "Decode", "", "ünknown"}
	phases := []string{"", "prefill", "Decode", "ROUTER", "x"}
	for _, name := range names {
		for _, role := range roles {
			for _, phase := range phases {
				got, kind, ok := ActivityFor(name, role, phase)
				want, wantKind, wantOK := builtActivity(name, role, phase)
				if got != want || kind != wantKind || ok != wantOK {
					t.Fatalf("ActivityFor(%q, %q, %q) = %q %q %v, want %q %q %v", name, role, phase, got, kind, ok, want, wantKind, wantOK)
				}
			}
		}
	}
	for _, c := range [][3]string{{"worker.admission", model.RolePrefill, ""}, {"request.dispatch", model.RoleDecode, ""},
		{"worker.operation.decode", model.RoleDecode, ""}, {"kv_router.select_worker", "unknown", ""}, {"kv_router.select_worker", "unknown", "prefill"}} {
		if n := testing.AllocsPerRun(100, func() { ActivityFor(c[0], c[1], c[2]) }); n != 0 {
			t.Errorf("ActivityFor(%q, %q, %q) allocates %.0f times", c[0], c[1], c[2], n)
		}
	}
}

// builtActivity is ActivityFor as it built every label.
func builtActivity(name, role, phase string) (string, string, bool) {
	role = titleCase(role)
	switch {
	case name == "request.preprocessing":
		return "Preprocessing", KindActivity, true
	case name == "kv_router.select_worker":
		if phase == "" {
			phase = "Router"
		}
		return titleCase(phase) + " selection", KindActivity, true
	case name == "worker.admission":
		return role + " ingress and transport setup", KindActivity, true
	case len(name) > 17 && name[:17] == "worker.operation.":
		return role + " operation", KindEnvelope, true
	case name == "request.dispatch":
		return role + " backend stream creation", KindActivity, true
	case len(name) > 19 && name[:19] == "response.streaming.":
		return role + " response pump", KindActivity, true
	case name == "response.streaming":
		return "Frontend response stream", KindConcurrent, true
	}
	return "", "", false
}
