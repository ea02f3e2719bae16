package trtllm

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/golden"
	"github.com/dsight/dsight/internal/model"
)

// record is a decoded line as the goldens show it: every counter the line
// recorded by name, nulls for N/A, nothing for fields it did not have.
type record struct {
	Line       int                 `json:"line"`
	Error      string              `json:"error,omitempty"`
	Format     string              `json:"format,omitempty"`
	Iteration  *int64              `json:"iteration,omitempty"`
	Rank       *int64              `json:"rank,omitempty"`
	RankKind   string              `json:"rank_kind,omitempty"`
	LocalRank  *int64              `json:"local_rank,omitempty"`
	LocalTime  string              `json:"local_time,omitempty"`
	FracDigits int                 `json:"frac_digits,omitempty"`
	Ints       map[string]int64    `json:"ints,omitempty"`
	Floats     map[string]*float64 `json:"floats,omitempty"`
}

func dump(in []byte) []byte {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	for i, line := range bytes.Split(in, []byte("\n")) {
		it, ok, err := Decode(line)
		r := record{Line: i + 1}
		switch {
		case err != nil:
			r.Error = err.Error()
		case !ok:
			continue
		default:
			o := it.Obs
			r.Format, r.Iteration, r.Rank, r.RankKind, r.LocalRank = o.Format, o.Iteration, o.Rank, o.RankKind, o.LocalRank
			r.LocalTime, r.FracDigits = o.LocalTime, o.FracDigits
			r.Ints, r.Floats = map[string]int64{}, map[string]*float64{}
			for k, v := range o.Ints {
				if v != nil {
					r.Ints[model.BatchIntNames[k]] = *v
				}
			}
			for k, v := range o.Floats {
				if v != nil {
					r.Floats[model.BatchFloatNames[k]] = v
				}
			}
		}
		if err := enc.Encode(r); err != nil {
			panic(err)
		}
	}
	return out.Bytes()
}

func fixtures(t testing.TB) []string {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); n != "README.md" && !strings.HasSuffix(n, ".golden") {
			out = append(out, filepath.Join("testdata", n))
		}
	}
	return out
}

// TestGolden decodes every fixture, one per field order plus malformed
// records, and compares with its golden.
func TestGolden(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, path+".golden", dump(in))
		})
	}
}

// TestFieldOrders: each fixture's records are read in its field order, so
// a parser that knows only one order fails here, not just in a golden diff.
func TestFieldOrders(t *testing.T) {
	want := map[string]string{
		"pr-6683_iter-log-elapsed-time.log": "trtllm-v2",
		"v1_pr-3914-before_decode_w0.out":   "trtllm-v1",
		"v3_host-step_decode_w1.out":        "trtllm-v3",
		"v4_kv-util_prefill_w0.out":         "trtllm-v4",
		"v5_later-additions_agg_w0.out":     "trtllm-v5",
	}
	for name, format := range want {
		in, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, line := range bytes.Split(in, []byte("\n")) {
			it, ok, err := Decode(line)
			if err != nil {
				t.Errorf("%s:%d: %v", name, i+1, err)
			}
			if !ok {
				continue
			}
			n++
			if it.Obs.Format != format || it.Obs.Iteration == nil || it.Obs.Rank == nil || it.Obs.LocalTime == "" {
				t.Errorf("%s:%d: %+v, want format %s", name, i+1, it.Obs, format)
			}
		}
		if n == 0 {
			t.Errorf("%s: no records", name)
		}
	}
}

// TestKeptAsLogged: the previous device step stays on the line that logged
// it, N/A is null (never 0), and the global and local ranks stay apart.
func TestKeptAsLogged(t *testing.T) {
	it, ok, err := Decode([]byte("[TRT-LLM] iter = 0, global_rank = 4, rank = 1, num_scheduled_requests = 2, kv_cache_util = N/A, host_step_time = 9ms, prev_device_step_time = N/A, timestamp = 2026-09-17 10:58:35"))
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	o := it.Obs
	if o.Floats[model.BatchPrevDeviceStepMS] != nil || o.Floats[model.BatchKVCacheUtil] != nil {
		t.Errorf("N/A became a value: %+v", o.Floats)
	}
	if *o.Rank != 4 || *o.LocalRank != 1 || o.RankKind != model.RankGlobal {
		t.Errorf("ranks %v/%v kind %s", *o.Rank, *o.LocalRank, o.RankKind)
	}
	if it.Stamp.FracDigits != 0 || o.LocalTime != "2026-09-17 10:58:35" {
		t.Errorf("stamp %+v %q", it.Stamp, o.LocalTime)
	}
}
