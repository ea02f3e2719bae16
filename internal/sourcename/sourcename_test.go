package sourcename

import (
	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/model"
	"reflect"
	"testing"
)

func intp(n int) *int       { return &n }
func strp(s string) *string { return &s }

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		want Identity
		ok   bool
	}{
		// Every example name in input-formats.md §0 and reference-behaviour.md §6.1.
		{"prefill-host_prefill_w0.out", Identity{Worker: "prefill-0", Host: "prefill-host", Role: "prefill", Index: 0, Ext: "out"}, true},
		{"decode-host_decode_w0_profile_rank0.sqlite", Identity{Worker: "decode-0", Host: "decode-host", Role: "decode", Index: 0, Rank: intp(0), Ext: "sqlite"}, true},
		{"decode-host_decode_w0_profile_gpu0-1_window001.sqlite", Identity{Worker: "decode-0", Host: "decode-host", Role: "decode", Index: 0, GPUs: strp("0-1"), Window: strp("001"), Ext: "sqlite"}, true},
		{"agg-host_agg_w0_e1_profile_gpu0-1_window001.sqlite", Identity{Worker: "agg-0", Host: "agg-host", Role: "agg", Index: 0, Engine: intp(1), GPUs: strp("0-1"), Window: strp("001"), Ext: "sqlite"}, true},
		{"front_frontend_0.out", Identity{Worker: "frontend", Host: "front", Role: "frontend", Index: 0, Ext: "out"}, true},
		{"node-b_decode_w0.out", Identity{Worker: "decode-0", Host: "node-b", Role: "decode", Index: 0, Ext: "out"}, true},
		{"bia0004_agg_w0_DP0.out", Identity{}, false},
		// Filenames from the Nsight guide and the tests' aggregated case.
		{"host_prefill_w3_profile_rank12.sqlite", Identity{Worker: "prefill-3", Host: "host", Role: "prefill", Index: 3, Rank: intp(12), Ext: "sqlite"}, true},
		{"node-a_aggregated_w0_e1.out", Identity{Worker: "agg-0", Host: "node-a", Role: "agg", Index: 0, Engine: intp(1), Ext: "out"}, true},
		{"node-a_prefill_w0.out", Identity{Worker: "prefill-0", Host: "node-a", Role: "prefill", Index: 0, Ext: "out"}, true},
		{"h_frontend_2_window3.sqlite", Identity{Worker: "frontend", Host: "h", Role: "frontend", Index: 2, Window: strp("3"), Ext: "sqlite"}, true},
		// The host is greedy, as in the reference: the last role segment names the worker.
		{"a_decode_w0_prefill_w1.out", Identity{Worker: "prefill-1", Host: "a_decode_w0", Role: "prefill", Index: 1, Ext: "out"}, true},
		{"gpu-host_decode_w10_profile_gpu0-1-2-3.sqlite", Identity{Worker: "decode-10", Host: "gpu-host", Role: "decode", Index: 10, GPUs: strp("0-1-2-3"), Ext: "sqlite"}, true},
		// Outside the grammar.
		{"", Identity{}, false},
		{"_decode_w0.out", Identity{}, false}, // empty host
		{"host_decode_w.out", Identity{}, false},
		{"host_decode_w0.log", Identity{}, false},
		{"host_decode_w0.out.gz", Identity{}, false},
		{"host_encode_w0.out", Identity{}, false},
		{"host_Decode_w0.out", Identity{}, false},
		{"host_decode_w0_profile_rank.sqlite", Identity{}, false},
		{"host_decode_w0_profile_gpu.sqlite", Identity{}, false},
		{"host_decode_w0_window.out", Identity{}, false},
		{"host_frontend.out", Identity{}, false},
		{"host_frontend_x.out", Identity{}, false},
		{"traces.jsonl", Identity{}, false},
		{"host_decode_w99999999999999999999.out", Identity{}, false}, // index overflows int
		{"host\n_decode_w0.out", Identity{}, false},
	}
	for _, tt := range tests {
		got, ok := Parse(tt.name)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"prefill-host_prefill_w0.out", "decode-host_decode_w0_profile_rank0.sqlite",
		"decode-host_decode_w0_profile_gpu0-1_window001.sqlite",
		"agg-host_agg_w0_e1_profile_gpu0-1_window001.sqlite", "front_frontend_0.out",
		"node-b_decode_w0.out", "bia0004_agg_w0_DP0.out", "x_aggregated_w1_e2.out",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, base string) {
		defer fuzzlimit.Start(t)()
		id, ok := Parse(base)
		if !ok {
			if id != (Identity{}) {
				t.Fatalf("unmatched %q returned %+v", base, id)
			}
			return
		}
		if id.Host == "" || (id.Ext != "out" && id.Ext != "sqlite") || id.Index < 0 {
			t.Fatalf("Parse(%q) = %+v", base, id)
		}
		switch id.Role {
		case model.RoleFrontend:
			if id.Worker != model.RoleFrontend || id.Engine != nil || id.Rank != nil || id.GPUs != nil {
				t.Fatalf("frontend %q = %+v", base, id)
			}
		case model.RolePrefill, model.RoleDecode, model.RoleAgg:
			if id.Rank != nil && id.GPUs != nil {
				t.Fatalf("%q has both rank and GPU set", base)
			}
		default:
			t.Fatalf("Parse(%q) role %q", base, id.Role)
		}
	})
}
