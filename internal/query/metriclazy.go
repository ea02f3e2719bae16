package query

import (
	"errors"
	"fmt"

	"github.com/dsight/dsight/internal/pyramid"
)

// In the native engine a metric shard handed over (LoadShard, or table by
// table with LoadShardFrames) is decoded as far as its header and index
// (pyramid.OpenShardLazy, OpenShardFrames); its chunks are decoded when an
// answer first reads them. "metrics" reads only the chunks its range
// statistics, carried setting, points and capacity walk (a 5 s window of
// a 200,000-row series: 7 of 32, its edge chunk and its levels), loading
// what a walk names missing and walking again; every other answer takes
// the whole summary (whole), as before. A fresh `dsight query metrics`
// spent a third of its time decoding chunks it never read. Filling a
// summary makes a new pyramid value and leaves the one answers may be
// reading unchanged. The page's engine opens every shard whole
// (pyramid's lazyshard_js.go), so there each entry is whole from the
// start.

// maxFillRounds bounds the walks of one series' item that each name
// missing chunks; after them every chunk is decoded. An item needs one to
// three: its plan, a carried setting's chunk before the range, the chunk
// holding the row that ends its first rows.
const maxFillRounds = 32

// whole is the entry's summary with every chunk decoded.
func (en *shardEntry) whole() (*pyramid.Pyramid, error) { return en.fill(nil, true) }

// fill is the entry's summary with, beyond the chunks it holds, the chunks
// ids decoded (every chunk when all).
func (en *shardEntry) fill(ids []int, all bool) (*pyramid.Pyramid, error) {
	en.mu.Lock()
	defer en.mu.Unlock()
	if en.lazy == nil {
		return en.p, nil
	}
	if all {
		ids = en.p.Unloaded()
	}
	p, complete, err := en.lazy.FillChunks(en.p, ids)
	if err != nil {
		return nil, fmt.Errorf("metric shard %s: %w", en.id, err)
	}
	en.p = p
	if complete {
		en.lazy = nil // the raw shard is no longer needed
	}
	return p, nil
}

// current is the entry's summary as decoded so far.
func (en *shardEntry) current() *pyramid.Pyramid {
	en.mu.Lock()
	defer en.mu.Unlock()
	return en.p
}

// metricItem is series i's item of a "metrics" answer, read from the
// chunks its walks need: first those its plan predicts, then what each
// walk names missing, until one completes. The answer is the one the
// whole summary gives: a walk reads the same rows and buckets whatever
// else is loaded.
func (e *Engine) metricItem(i int, w window, withPoints bool, pixels int) (MetricItem, error) {
	en := e.entryOf(i)
	if en == nil {
		m := e.c.Metrics[i]
		return MetricItem{MetricSeriesRecord: seriesRecord(&m), Shard: metricShardRecord(m.Shard)}, errors.New("summary not loaded")
	}
	var limEn *shardEntry
	if r := e.c.Metrics[i].Reference; r != nil && r.SeriesID != nil {
		limEn = e.entryOf(*r.SeriesID)
	}
	p := en.current()
	need := p.PlanStats(w.fromNS, w.toNS)
	if withPoints && pixels > 0 && pixels <= MaxPlotPixels {
		need = append(need, p.Plan(w.fromNS, w.toNS, pixels)...)
	}
	p, err := en.fill(need, false)
	if err != nil {
		return MetricItem{}, err
	}
	var lim *pyramid.Pyramid
	if limEn != nil {
		lim = limEn.current()
		_, limNeed := pyramid.PlanCapacity(p, lim, w.fromNS, w.toNS)
		if lim, err = limEn.fill(limNeed, false); err != nil {
			return MetricItem{}, err
		}
	}
	for round := 0; ; round++ {
		item, err := e.metricItemFrom(i, p, lim, w, withPoints, pixels)
		var miss *pyramid.IncompleteError
		if !errors.As(err, &miss) {
			return item, err
		}
		last := round >= maxFillRounds
		if round > maxFillRounds {
			return item, err // every chunk was decoded: not a missing chunk
		}
		if p, err = en.fill(miss.Chunks, last); err != nil {
			return MetricItem{}, err
		}
		if limEn != nil {
			if lim, err = limEn.fill(miss.Reference, last); err != nil {
				return MetricItem{}, err
			}
		}
	}
}
