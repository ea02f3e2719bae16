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
