package sessionmetrics

import (
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// The in-flight family is marked stackable by a key only where every
// request is in at most one band of it: two phases and single-worker
// requests stack; requests served by a prefill and a decode worker do not
// stack by worker; one phase has no phase bands at all.
func TestInFlightStackBy(t *testing.T) {
	served := func(ws ...string) *model.RequestServer { return &model.RequestServer{Workers: ws} }
	cases := []struct {
		name string
		reqs []model.Request
		want []string
	}{
		{"two phases, one worker each", []model.Request{
			{ID: "a", StartNS: 0, EndNS: sec(2), Status: model.StatusCompleted, Phase: phase("profiling"), Server: served("w0")},
			{ID: "b", StartNS: sec(1), EndNS: sec(3), Status: model.StatusCompleted, Phase: phase("ramp"), Server: served("w1")},
		}, []string{"phase", "worker"}},
		{"disaggregated", []model.Request{
			{ID: "a", StartNS: 0, EndNS: sec(2), Status: model.StatusCompleted, Phase: phase("profiling"), Server: served("decode-0", "prefill-0")},
			{ID: "b", StartNS: sec(1), EndNS: sec(3), Status: model.StatusCompleted, Phase: phase("profiling"), Server: served("decode-0")},
		}, nil},
	}
	for _, c := range cases {
		d := &model.Dataset{Meta: model.Meta{DurationNS: sec(4)}, Requests: c.reqs}
		fams, _, err := Derive(d)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fams {
			if f.Name == famInFlight {
				got = f.StackBy
			} else if f.StackBy != nil {
				t.Errorf("%s: %s is marked stackable", c.name, f.Name)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: stack_by %v, want %v", c.name, got, c.want)
		}
	}
}

// In disaggregated serving a request is served by one prefill and one
// decode worker: the worker bands stack within their recorded role, and
// only when no request names two workers of one role and every worker's
// role is recorded. The worker series carry their role as a label.
func TestInFlightStackWithinRole(t *testing.T) {
	served := func(ws ...string) *model.RequestServer { return &model.RequestServer{Workers: ws} }
	bind := func(pairs ...string) []model.RequestEvidence {
		e := model.RequestEvidence{}
		for i := 0; i+1 < len(pairs); i += 2 {
			e.Bindings = append(e.Bindings, model.WorkerBinding{Worker: pairs[i], Role: pairs[i+1]})
		}
		return []model.RequestEvidence{e}
	}
	roles := bind("prefill-0", "prefill", "prefill-1", "Prefill", "decode-0", "decode")
	cases := []struct {
		name       string
		evidence   []model.RequestEvidence
		b          []string
		wantKeys   []string
		wantWithin map[string]string
	}{
		{"one worker of each role", roles, []string{"decode-0", "prefill-1"}, []string{"worker"}, map[string]string{"worker": "role"}},
		{"two decode workers on one request", append(roles, bind("decode-1", "decode")...), []string{"decode-0", "decode-1"}, nil, nil},
		{"a worker without a recorded role", bind("prefill-0", "prefill", "decode-0", "decode"), []string{"decode-0", "prefill-1"}, nil, nil},
		{"a worker recorded in two roles", append(roles, bind("prefill-1", "decode")...), []string{"decode-0", "prefill-1"}, nil, nil},
	}
	for _, c := range cases {
		d := &model.Dataset{Meta: model.Meta{DurationNS: sec(4)}, Evidence: c.evidence, Requests: []model.Request{
			{ID: "a", StartNS: 0, EndNS: sec(2), Status: model.StatusCompleted, Phase: phase("profiling"), Server: served("decode-0", "prefill-0")},
			{ID: "b", StartNS: sec(1), EndNS: sec(3), Status: model.StatusCompleted, Phase: phase("profiling"), Server: served(c.b...)},
		}}
		fams, ms, err := Derive(d)
		if err != nil {
			t.Fatal(err)
		}
		f := fams[0]
		if f.Name != famInFlight || !reflect.DeepEqual(f.StackBy, c.wantKeys) || !reflect.DeepEqual(f.StackWithin, c.wantWithin) {
			t.Errorf("%s: %s stack_by %v within %v, want %v within %v", c.name, f.Name, f.StackBy, f.StackWithin, c.wantKeys, c.wantWithin)
		}
		if c.wantWithin == nil {
			continue
		}
		got := map[string]string{}
		for _, m := range ms {
			if m.Name != famInFlight || len(m.Labels) == 0 {
				continue
			}
			if len(m.Labels) != 2 || m.Labels[1].Key != "role" {
				t.Fatalf("%s: labels %v", c.name, m.Labels)
			}
			got[m.Labels[0].Value] = m.Labels[1].Value
		}
		want := map[string]string{"prefill-0": "prefill", "prefill-1": "prefill", "decode-0": "decode"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: roles %v, want %v", c.name, got, want)
		}
	}
}
