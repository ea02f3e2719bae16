package query

import (
	"sync"

	"github.com/dsight/dsight/internal/pyramid"
)

// The metric shards handed over with LoadShard are kept in a least recently
// used cache bounded by their decoded bytes and their rows, so a page that
// browses many families of a large capture does not grow without bound.
//
// Eviction never makes a question fail: a shard is only dropped after an
// answer (never while an answer reads it), a shard handed over and not yet
// read stays until an answer reads it (the reader loads, then asks), and
// the shards an answer just read are dropped only when they alone exceed
// the budget — such a question is answered but its shards are not kept.
// An evicted shard is listed as missing again by metric_plan and plot.

// The default budget. 64 MiB of decoded shard bytes holds about four
// million rows (a shard stores some 15 bytes per row with its levels):
// a dozen 17,000-row GPU families of a 100M-sample capture at once, while
// the page's heap stays a small multiple of it.
const (
	DefaultMetricCacheBytes  = 64 << 20
	DefaultMetricCachePoints = 4_000_000
)

// shardEntry is one cached metric shard.
type shardEntry struct {
	id string
	// mu guards p and lazy: p holds the chunks decoded so far, and lazy
	// (nil once every chunk is) the shard they are decoded from
	// (metriclazy.go).
	mu     sync.Mutex
	p      *pyramid.Pyramid
	lazy   *pyramid.LazyShard
	series []int
	bytes  int64 // decoded payload length
	points int64 // exact rows
	// pins counts the answers reading the shard right now; fresh marks a
	// shard handed over and not read yet. Neither kind is evicted.
	pins  int
	fresh bool
	// usedAt is the release that last read the shard, claimedAt the claim
	// that last listed it.
	usedAt, claimedAt uint64
	prev, next        *shardEntry // recency ring through shardCache.ring
}

// shardCache is the metric store's LRU; metricsMu guards it.
type shardCache struct {
	maxBytes, maxPoints int64
	bytes, points       int64
	entries             map[string]*shardEntry
	// ring is the sentinel of a circular list of the entries, most recently
	// used first: ring.next is the newest, ring.prev the oldest.
	ring             shardEntry
	releases, claims uint64
	evicted          int64
}

func (c *shardCache) unlink(en *shardEntry) {
	en.prev.next, en.next.prev = en.next, en.prev
	en.prev, en.next = nil, nil
}

func (c *shardCache) pushFront(en *shardEntry) {
	if c.ring.next == nil {
		c.ring.next, c.ring.prev = &c.ring, &c.ring
	}
	en.prev, en.next = &c.ring, c.ring.next
	c.ring.next.prev = en
	c.ring.next = en
}

func (c *shardCache) over() bool { return c.bytes > c.maxBytes || c.points > c.maxPoints }

// MetricCacheStatus describes the metric shards the engine holds.
type MetricCacheStatus struct {
	Shards int `json:"shards"`
	// Series counts the series whose shard is held; Families the families
	// with at least one stored series, all of whose shards are held.
	Series   int `json:"series"`
	Families int `json:"families"`
	// FamilyNames names those families, in catalog order.
	FamilyNames []string `json:"family_names"`
	Points      int64    `json:"points"` // exact rows of the held shards
	Bytes       int64    `json:"bytes"`  // their decoded bytes
	// MaxPoints and MaxBytes are the budget: past either, the least
	// recently used shards are dropped after an answer.
	MaxPoints int64 `json:"max_points"`
	MaxBytes  int64 `json:"max_bytes"`
	// Pending counts shards handed over and not read by an answer yet,
	// which the budget does not evict; Evicted counts shards dropped since
	// the engine started.
	Pending int   `json:"pending"`
	Evicted int64 `json:"evicted"`
}

// SetMetricCacheBudget bounds the metric shards the engine keeps by their
// decoded bytes and exact rows, dropping the least recently used ones at
// once down to the new budget.
func (e *Engine) SetMetricCacheBudget(maxBytes, maxPoints int64) error {
	if maxBytes < 0 || maxPoints < 0 {
		return badArgs("a metric cache budget must not be negative")
	}
	e.metricIndex()
	e.metricsMu.Lock()
	defer e.metricsMu.Unlock()
	c := &e.metrics.cache
	c.maxBytes, c.maxPoints = maxBytes, maxPoints
	e.evictLocked(nil)
	return nil
}

// MetricCache reports the metric shards the engine holds and its budget.
func (e *Engine) MetricCache() MetricCacheStatus {
	e.metricIndex()
	e.metricsMu.Lock()
	defer e.metricsMu.Unlock()
	c := &e.metrics.cache
	s := MetricCacheStatus{Shards: len(c.entries), Series: len(e.metrics.loaded), Points: c.points, Bytes: c.bytes,
		MaxPoints: c.maxPoints, MaxBytes: c.maxBytes, Evicted: c.evicted}
	for _, en := range c.entries {
		if en.fresh {
			s.Pending++
		}
	}
	held := map[string]bool{}
	for i := range e.c.Metrics {
		m := &e.c.Metrics[i]
		if m.Shard == nil {
			continue
		}
		all, seen := held[m.Name]
		held[m.Name] = (all || !seen) && e.metrics.loaded[i] != nil
	}
	s.FamilyNames = []string{}
	for _, f := range e.c.MetricFamilies {
		if held[f.Name] {
			s.Families++
			s.FamilyNames = append(s.FamilyNames, f.Name)
		}
	}
	return s
}

// storeLocked caches a shard as handed over (lazy: the shard its chunks
// are decoded from, nil when p holds them all): fresh and most recently
// used. It evicts nothing: the question that loaded it has not been
// answered yet.
func (e *Engine) storeLocked(id string, p *pyramid.Pyramid, lazy *pyramid.LazyShard, series []int, size int64) {
	c := &e.metrics.cache
	if en := c.entries[id]; en != nil {
		// Handed over again (two questions loaded it at once): the same
		// id is the same content, and answers may hold the entry pinned.
		en.fresh = true
		c.unlink(en)
		c.pushFront(en)
		return
	}
	en := &shardEntry{id: id, p: p, lazy: lazy, series: series, bytes: size, points: p.Rows(), fresh: true}
	c.pushFront(en)
	c.entries[id] = en
	c.bytes += en.bytes
	c.points += en.points
	for _, i := range series {
		e.metrics.loaded[i] = en
	}
}

func (e *Engine) dropLocked(en *shardEntry) {
	c := &e.metrics.cache
	c.unlink(en)
	delete(c.entries, en.id)
	c.bytes -= en.bytes
	c.points -= en.points
	for _, i := range en.series {
		delete(e.metrics.loaded, i)
	}
}

// claim returns the cached shards the series idx and their limit series
// read, pinned until release, or else the shards to load first (pinning
// nothing).
func (e *Engine) claim(idx []int) (held []*shardEntry, missing []ShardNeed) {
	e.metricIndex()
	e.metricsMu.Lock()
	defer e.metricsMu.Unlock()
	c := &e.metrics.cache
	c.claims++
	var need map[string]*ShardNeed
	var order []string
	held = make([]*shardEntry, 0, len(idx))
	add := func(i int) {
		m := &e.c.Metrics[i]
		if m.Shard == nil {
			return
		}
		if en := c.entries[m.Shard.ID]; en != nil {
			if en.claimedAt != c.claims {
				en.claimedAt = c.claims
				held = append(held, en)
			}
			return
		}
		if need == nil {
			need = map[string]*ShardNeed{}
		}
		n := need[m.Shard.ID]
		if n == nil {
			n = &ShardNeed{ID: m.Shard.ID, Bytes: m.Shard.Bytes, Parts: shardParts(m.Shard.Parts)}
			need[m.Shard.ID] = n
			order = append(order, m.Shard.ID)
		}
		n.Series = append(n.Series, i)
	}
	for _, i := range idx {
		add(i)
		if r := e.c.Metrics[i].Reference; r != nil && r.SeriesID != nil && *r.SeriesID >= 0 && *r.SeriesID < len(e.c.Metrics) {
			add(*r.SeriesID)
		}
	}
	if len(order) > 0 {
		missing = make([]ShardNeed, 0, len(order))
		for _, id := range order {
			missing = append(missing, *need[id])
		}
		return nil, missing
	}
	for _, en := range held {
		en.pins++
	}
	return held, nil
}

// release ends an answer that read held: they become the most recently
// used (the first listed the most recent), then the cache is brought back
// within its budget.
func (e *Engine) release(held []*shardEntry) {
	e.metricsMu.Lock()
	defer e.metricsMu.Unlock()
	c := &e.metrics.cache
	c.releases++
	for k := len(held) - 1; k >= 0; k-- {
		en := held[k]
		en.pins--
		en.fresh = false
		en.usedAt = c.releases
		if c.entries[en.id] == en {
			c.unlink(en)
			c.pushFront(en)
		}
	}
	e.evictLocked(held)
}

// evictLocked drops the least recently used shards, other than pinned,
// fresh and just used ones, until the cache is within budget. If it still
// is not and the just used shards alone exceed the budget, they are dropped
// too: the answer was given, the shards are not kept.
func (e *Engine) evictLocked(used []*shardEntry) {
	c := &e.metrics.cache
	for en := c.ring.prev; en != nil && en != &c.ring && c.over(); {
		older := en.prev
		if en.pins == 0 && !en.fresh && (used == nil || en.usedAt != c.releases) {
			e.dropLocked(en)
			c.evicted++
		}
		en = older
	}
	if !c.over() || len(used) == 0 {
		return
	}
	var bytes, points int64
	for _, en := range used {
		bytes += en.bytes
		points += en.points
	}
	if bytes <= c.maxBytes && points <= c.maxPoints {
		return
	}
	for _, en := range used {
		if en.pins == 0 && c.entries[en.id] == en {
			e.dropLocked(en)
			c.evicted++
		}
	}
}

// unpin lets go of a claim that read nothing.
func (e *Engine) unpin(held []*shardEntry) {
	e.metricsMu.Lock()
	defer e.metricsMu.Unlock()
	for _, en := range held {
		en.pins--
	}
}

// metricCacheOp answers "metric_cache": the status, after setting the
// budget when max_bytes or max_points is given (the other part kept).
func (e *Engine) metricCacheOp(a Args) (MetricCacheStatus, error) {
	if a.MaxBytes != nil || a.MaxPoints != nil {
		st := e.MetricCache()
		maxBytes, maxPoints := st.MaxBytes, st.MaxPoints
		if a.MaxBytes != nil {
			maxBytes = *a.MaxBytes
		}
		if a.MaxPoints != nil {
			maxPoints = *a.MaxPoints
		}
		if err := e.SetMetricCacheBudget(maxBytes, maxPoints); err != nil {
			return MetricCacheStatus{}, err
		}
	}
	return e.MetricCache(), nil
}
