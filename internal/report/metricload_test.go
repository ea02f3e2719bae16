package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/query"
)

// LoadMetricShards reads the shards on several goroutines but hands them
// over in the order named, and of several damaged shards names the first.
func TestLoadMetricShardsInOrderFirstFailureFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(withMetrics(t, dataset("job")), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	core, rdir, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(e *query.Engine) []query.ShardNeed {
		var env struct {
			Result query.MetricPlan `json:"result"`
		}
		if err := json.Unmarshal(e.Handle([]byte(`{"op":"metric_plan","args":{"name":"busy"}}`)), &env); err != nil {
			t.Fatal(err)
		}
		return env.Result.Shards
	}
	e, err := query.New(core)
	if err != nil {
		t.Fatal(err)
	}
	needs := plan(e)
	if len(needs) < 6 {
		t.Fatalf("%d shards planned", len(needs))
	}
	if err := LoadMetricShards(e, core, rdir, needs); err != nil {
		t.Fatal(err)
	}
	if left := plan(e); len(left) != 0 || e.MetricCache().Shards != len(needs) {
		t.Fatalf("after loading, %d planned, %+v", len(left), e.MetricCache())
	}

	damage := func(k int) string {
		p := filepath.Join(rdir, filepath.FromSlash(needs[k].Parts[0].Path))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 1
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return needs[k].Parts[0].ID
	}
	first := damage(2)
	damage(len(needs) - 1)
	e, err = query.New(core)
	if err != nil {
		t.Fatal(err)
	}
	err = LoadMetricShards(e, core, rdir, needs)
	if err == nil || !strings.Contains(err.Error(), first) {
		t.Fatalf("error %v, want one naming %s", err, first)
	}
	// The shards before the damaged one were handed over, none after it.
	if got := e.MetricCache().Shards; got != 2 {
		t.Fatalf("%d shards handed over before the failure, want 2", got)
	}
}
