package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
)

// cacheFixture is a run of four families f0…f3. Each has two series with
// their own shard, except f3, whose two series share one shard (identical
// samples are stored once), so the cache unit is the shard, not the series.
type cacheFixture struct {
	e        *Engine
	payloads map[string][]byte
	shards   map[string][]string // family → its shard ids
}

const cacheRows = 2000

func newCacheFixture(t testing.TB) *cacheFixture {
	t.Helper()
	d := fixture()
	dur := d.Meta.DurationNS
	fx := &cacheFixture{payloads: map[string][]byte{}, shards: map[string][]string{}}
	for f := range 4 {
		name := fmt.Sprintf("f%d", f)
		d.MetricFamilies = append(d.MetricFamilies, model.MetricFamily{Name: name, SeriesCount: 2, Samples: 2 * cacheRows})
		for k := range 2 {
			id := fmt.Sprintf("%s-s%d", name, k)
			if f == 3 {
				id = name + "-shared"
			}
			if _, ok := fx.payloads[id]; !ok {
				var ts []int64
				var vs []float64
				for r := range cacheRows {
					ts, vs = append(ts, int64(r)*(dur/cacheRows)), append(vs, float64((r*(f+3)+k*7)%11))
				}
				fx.payloads[id] = metricPayload(t, pyramid.Sample, ts, vs)
				fx.shards[name] = append(fx.shards[name], id)
			}
			w := fmt.Sprintf("decode-%d", k)
			d.Metrics = append(d.Metrics, model.MetricSeries{ID: len(d.Metrics), Name: name, Worker: &w, Temporal: "sample", Samples: cacheRows, Shard: &model.MetricShard{Shard: model.Shard{ID: id}}})
		}
	}
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	fx.e = e
	return fx
}

// familyBytes is the decoded size of a family's shards.
func (fx *cacheFixture) familyBytes(name string) int64 {
	var n int64
	for _, id := range fx.shards[name] {
		n += int64(len(fx.payloads[id]))
	}
	return n
}

// plan lists the shard ids metric_plan says a family still needs.
func (fx *cacheFixture) plan(t testing.TB, name string) []string {
	t.Helper()
	raw, msg := askMetric(t, fx.e, "metric_plan", Args{Name: &name})
	if msg != "" {
		t.Fatal(msg)
	}
	var p struct{ Shards []ShardNeed }
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range p.Shards {
		out = append(out, s.ID)
	}
	return out
}

// answer asks "metrics" for a family with points the way the page and the
// CLI do: plan, load what is missing, ask.
func (fx *cacheFixture) answer(t testing.TB, name string) string {
	t.Helper()
	for _, id := range fx.plan(t, name) {
		if err := fx.e.LoadShard(id, fx.payloads[id]); err != nil {
			t.Fatal(err)
		}
	}
	raw, msg := askMetric(t, fx.e, "metrics", Args{Name: &name, Points: true})
	if msg != "" {
		t.Fatalf("metrics %s: %s", name, msg)
	}
	return string(raw)
}

func (fx *cacheFixture) checkWithinBudget(t testing.TB) MetricCacheStatus {
	t.Helper()
	st := fx.e.MetricCache()
	if st.Bytes > st.MaxBytes || st.Points > st.MaxPoints {
		t.Fatalf("cache over budget: %+v", st)
	}
	return st
}

func TestMetricCacheEvictsLeastRecentlyUsed(t *testing.T) {
	fx := newCacheFixture(t)
	// Room for two two-shard families and half a shard.
	budget := fx.familyBytes("f0") + fx.familyBytes("f1") + int64(len(fx.payloads["f2-s0"]))/2
	if err := fx.e.SetMetricCacheBudget(budget, DefaultMetricCachePoints); err != nil {
		t.Fatal(err)
	}
	first := map[string]string{}
	for _, name := range []string{"f0", "f1"} {
		first[name] = fx.answer(t, name)
		fx.checkWithinBudget(t)
	}
	if st := fx.e.MetricCache(); st.Shards != 4 || st.Series != 4 || st.Families != 2 || st.Evicted != 0 || st.Points != 4*cacheRows {
		t.Fatalf("after f0, f1: %+v", st)
	}
	fx.answer(t, "f0") // f0 is used again: f1 is now the least recent
	if got := fx.plan(t, "f0"); len(got) != 0 {
		t.Fatalf("f0 was just answered, plan lists %v", got)
	}
	first["f2"] = fx.answer(t, "f2")
	st := fx.checkWithinBudget(t)
	if st.Shards != 4 || st.Evicted != 2 || st.Families != 2 {
		t.Fatalf("after f2: %+v", st)
	}
	if got, want := fx.plan(t, "f1"), fx.shards["f1"]; !slices.Equal(got, want) {
		t.Fatalf("evicted f1: plan lists %v, want %v", got, want)
	}
	for _, name := range []string{"f0", "f2"} {
		if got := fx.plan(t, name); len(got) != 0 {
			t.Fatalf("%s should be cached, plan lists %v", name, got)
		}
	}
	// The evicted family is not answered from memory that is gone…
	name := "f1"
	if _, msg := askMetric(t, fx.e, "metrics", Args{Name: &name}); !strings.Contains(msg, "needs shards not loaded: f1-s0, f1-s1") {
		t.Fatalf("evicted family answered: %q", msg)
	}
	// …and answers identically once reloaded, evicting the now oldest, f0.
	if again := fx.answer(t, "f1"); again != first["f1"] {
		t.Fatalf("f1 after reload differs:\n%s\n%s", again, first["f1"])
	}
	fx.checkWithinBudget(t)
	if got := fx.plan(t, "f0"); !slices.Equal(got, fx.shards["f0"]) {
		t.Fatalf("f0 should be evicted, plan lists %v", got)
	}
	for _, name := range []string{"f0", "f2"} {
		if again := fx.answer(t, name); again != first[name] {
			t.Fatalf("%s after reload differs", name)
		}
		fx.checkWithinBudget(t)
	}
}

func TestMetricCacheUnitIsTheShard(t *testing.T) {
	fx := newCacheFixture(t)
	fx.answer(t, "f3")
	st := fx.e.MetricCache()
	if st.Shards != 1 || st.Series != 2 || st.Families != 1 || st.Points != cacheRows || st.Bytes != fx.familyBytes("f3") {
		t.Fatalf("one shared shard: %+v", st)
	}
	if st.MaxBytes != DefaultMetricCacheBytes || st.MaxPoints != DefaultMetricCachePoints {
		t.Fatalf("default budget: %+v", st)
	}
	// A budget too small for it drops the shard and both its series.
	if err := fx.e.SetMetricCacheBudget(1, DefaultMetricCachePoints); err != nil {
		t.Fatal(err)
	}
	if st := fx.e.MetricCache(); st.Shards != 0 || st.Series != 0 || st.Bytes != 0 || st.Points != 0 || st.Evicted != 1 {
		t.Fatalf("after lowering the budget: %+v", st)
	}
	if err := fx.e.SetMetricCacheBudget(-1, 0); err == nil {
		t.Fatal("a negative budget is accepted")
	}
}

// An over-budget question is answered; its shards are not kept.
func TestMetricCacheOverBudgetQuestionAnswers(t *testing.T) {
	for _, budget := range []struct{ bytes, points int64 }{{1, DefaultMetricCachePoints}, {DefaultMetricCacheBytes, cacheRows}, {0, 0}} {
		fx := newCacheFixture(t)
		want := fx.answer(t, "f1")
		if err := fx.e.SetMetricCacheBudget(budget.bytes, budget.points); err != nil {
			t.Fatal(err)
		}
		fx.answer(t, "f0") // kept: f0 is the older family
		for round := range 3 {
			if got := fx.answer(t, "f1"); got != want {
				t.Fatalf("budget %+v round %d: answer differs", budget, round)
			}
			st := fx.checkWithinBudget(t)
			if st.Shards != 0 || st.Pending != 0 {
				t.Fatalf("budget %+v: over-budget family kept: %+v", budget, st)
			}
			if got := fx.plan(t, "f1"); !slices.Equal(got, fx.shards["f1"]) {
				t.Fatalf("budget %+v: plan lists %v", budget, got)
			}
		}
	}
}

// Shards handed over are kept until an answer reads them, whatever other
// answers do meanwhile; shards an answer is reading are not evicted.
func TestMetricCacheKeepsShardsOfPendingQuestions(t *testing.T) {
	fx := newCacheFixture(t)
	if err := fx.e.SetMetricCacheBudget(fx.familyBytes("f0"), DefaultMetricCachePoints); err != nil {
		t.Fatal(err)
	}
	// f1 is loaded (its question is pending) when f0's answer trims.
	for _, id := range fx.shards["f1"] {
		if err := fx.e.LoadShard(id, fx.payloads[id]); err != nil {
			t.Fatal(err)
		}
	}
	if st := fx.e.MetricCache(); st.Pending != 2 {
		t.Fatalf("pending: %+v", st)
	}
	fx.answer(t, "f0")
	if got := fx.plan(t, "f1"); len(got) != 0 {
		t.Fatalf("pending f1 evicted: plan lists %v", got)
	}
	fx.answer(t, "f1") // and answers without a reload

	// An answer in progress holds its shards while another answer trims.
	f1 := fx.e.matchSeries(Args{Name: ptr("f1")})
	held, missing := fx.e.claim(f1)
	if missing != nil {
		t.Fatalf("f1 missing %v", missing)
	}
	fx.answer(t, "f2") // over budget with f1: f1 is older, but in use
	for _, i := range f1 {
		if fx.e.entryOf(i) == nil {
			t.Fatalf("series %d evicted while its answer reads it", i)
		}
	}
	if _, err := fx.e.metricItem(f1[0], window{0, 12, 0, 12 * s}, true, 0); err != nil {
		t.Fatal(err)
	}
	fx.e.release(held)
	st := fx.checkWithinBudget(t)
	if st.Shards != 2 || !slices.Equal(fx.plan(t, "f2"), fx.shards["f2"]) {
		t.Fatalf("after release the older f2 goes (f1 was read last): %+v", st)
	}

	// Handed over again while an answer reads it (two questions loaded it
	// at once), a shard stays held for that answer.
	if held, missing = fx.e.claim(f1); missing != nil {
		t.Fatalf("f1 missing %v", missing)
	}
	for _, id := range fx.shards["f1"] {
		if err := fx.e.LoadShard(id, fx.payloads[id]); err != nil {
			t.Fatal(err)
		}
	}
	fx.answer(t, "f1") // reads the reloaded shards: no longer fresh
	fx.answer(t, "f2") // and trims: f1 is older, but still in use
	for _, i := range f1 {
		if fx.e.entryOf(i) == nil {
			t.Fatalf("series %d evicted while its answer reads it", i)
		}
	}
	fx.e.release(held)
}

// A plot reads through the same cache: it names the evicted shards.
func TestMetricCachePlotNamesEvictedShards(t *testing.T) {
	fx := newCacheFixture(t)
	if err := fx.e.SetMetricCacheBudget(fx.familyBytes("f0"), DefaultMetricCachePoints); err != nil {
		t.Fatal(err)
	}
	fx.answer(t, "f0")
	req := PlotRequest{Pixels: 300, Series: []int{0, 1}}
	want, err := fx.e.MetricPlot(req)
	if err != nil {
		t.Fatal(err)
	}
	fx.answer(t, "f1")
	_, err = fx.e.MetricPlot(req)
	var need *ShardsNeededError
	if !errors.As(err, &need) || len(need.Shards) != 2 || need.Shards[0].ID != "f0-s0" || need.Shards[1].ID != "f0-s1" {
		t.Fatalf("plot after eviction: %v", err)
	}
	for _, s := range need.Shards {
		if err := fx.e.LoadShard(s.ID, fx.payloads[s.ID]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := fx.e.MetricPlot(req)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Encode()) != string(want.Encode()) {
		t.Fatal("plot after reload differs")
	}
	fx.checkWithinBudget(t)
}

// Readers asking concurrently under a tiny budget get the answers they
// would get alone: a question may find a shard gone before it asks (and
// loads it again), never while it is answered.
func TestMetricCacheConcurrentReaders(t *testing.T) {
	fx := newCacheFixture(t)
	want := map[string]string{}
	for f := range 4 {
		name := fmt.Sprintf("f%d", f)
		want[name] = fx.answer(t, name)
	}
	if err := fx.e.SetMetricCacheBudget(fx.familyBytes("f0")*3/2, DefaultMetricCachePoints); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 60 {
				name := fmt.Sprintf("f%d", rng.IntN(4))
				var got string
				for round := 0; ; round++ {
					var p struct{ Shards []ShardNeed }
					raw, _ := fx.e.Do(Request{Op: "metric_plan", Args: Args{Name: &name}})
					b, _ := json.Marshal(raw)
					_ = json.Unmarshal(b, &p)
					for _, s := range p.Shards {
						if err := fx.e.LoadShard(s.ID, fx.payloads[s.ID]); err != nil {
							errs <- err
							return
						}
					}
					res, err := fx.e.Do(Request{Op: "metrics", Args: Args{Name: &name, Points: true}})
					if err == nil {
						b, _ := json.Marshal(res)
						got = string(b)
						break
					}
					if !strings.Contains(err.Error(), "needs shards not loaded") || round > 50 {
						errs <- fmt.Errorf("%s: %w", name, err)
						return
					}
				}
				if got != want[name] {
					errs <- fmt.Errorf("%s answers differently under eviction", name)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	fx.checkWithinBudget(t)
}
