package report

import (
	"bytes"
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

	// The summaries share a pack script: a unit of one's payload is
	// changed, which its own hash refuses while its neighbours still read.
	damage := func(k int) string {
		part := needs[k].Parts[0]
		if !part.Pack {
			t.Fatalf("shard %d is not packed", k)
		}
		p := filepath.Join(rdir, filepath.FromSlash(part.Path))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		at := bytes.Index(b, utf16(part.ID+`",function(){/*`))
		if at < 0 {
			t.Fatalf("%s does not hold part %s", part.Path, part.ID)
		}
		b[at+2*len(part.ID+`",function(){/*`)+4] ^= 1 // the third unit
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return part.ID
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

// utf16 is ASCII text s as UTF-16LE, as a dense script writes it.
func utf16(s string) []byte {
	out := make([]byte, 0, 2*len(s))
	for i := range len(s) {
		out = append(out, s[i], 0)
	}
	return out
}
