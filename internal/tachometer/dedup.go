package tachometer

import (
	"cmp"
	"slices"
)

// This file holds the bounded duplicate and conflict detection that runs on
// every in-window point (reference §5.3): a point identical in time and value
// to an earlier point of its series is dropped, and a timestamp with more
// than one distinct value is a conflict whose values are all kept.

// tv is one retained (time, value) pair.
type tv struct {
	ts int64
	v  float64
}

type seriesState struct {
	info    SeriesInfo
	family  *familyState
	id      int32 // -1 until the first point is delivered
	hasLast bool
	lastTS  int64
	recent  []tv // sorted by ts: the latest timestamp's values, and every pair at or after the horizon
	stats   SeriesStats
}

// observe applies duplicate and conflict rules to one in-window point and
// queues it for the sink unless it is a duplicate.
func (r *reader) observe(s *seriesState, t int64, v float64, source int32, row int64) error {
	if s.id < 0 {
		s.id = int32(len(r.ordered))
		s.info.ID = int(s.id)
		r.ordered = append(r.ordered, s)
		s.family.series = append(s.family.series, s)
		if err := r.sink.Series(&s.info); err != nil {
			return err
		}
	}
	switch {
	case !s.hasLast || t > s.lastTS:
		if s.hasLast && s.lastTS < r.horizon {
			r.retained -= int64(len(s.recent))
			s.recent = s.recent[:0]
		}
		s.recent = append(s.recent, tv{t, v})
		r.retain(1)
		s.hasLast, s.lastTS = true, t
	case t < s.lastTS && t < r.horizon:
		r.audit.Unchecked++
	default:
		lo, _ := slices.BinarySearchFunc(s.recent, t, func(e tv, t int64) int { return cmp.Compare(e.ts, t) })
		hi := lo
		for ; hi < len(s.recent) && s.recent[hi].ts == t; hi++ {
			if s.recent[hi].v == v { // numeric equality: 0.0 equals -0.0
				s.stats.Duplicates++
				r.audit.Duplicates++
				return nil
			}
		}
		switch hi - lo {
		case 0:
		case 1:
			s.stats.ConflictTimestampsNS = append(s.stats.ConflictTimestampsNS, t)
			s.stats.ConflictingSamples += 2
			r.audit.ConflictingSamples += 2
		default:
			s.stats.ConflictingSamples++
			r.audit.ConflictingSamples++
		}
		s.recent = slices.Insert(s.recent, hi, tv{t, v})
		r.retain(1)
	}
	s.stats.Points++
	if n := len(s.stats.Sources); n == 0 || s.stats.Sources[n-1] != source {
		s.stats.Sources = append(s.stats.Sources, source)
	}
	r.buf = append(r.buf, Point{Series: s.id, Source: source, Row: row, TimeNS: t, Value: v})
	if len(r.buf) == cap(r.buf) {
		return r.flush()
	}
	return nil
}

func (r *reader) retain(n int64) {
	r.retained += n
	if r.retained > r.audit.RetainedPeak {
		r.audit.RetainedPeak = r.retained
	}
}

func (r *reader) flush() error {
	if len(r.buf) == 0 {
		return nil
	}
	err := r.sink.Points(r.buf)
	r.buf = r.buf[:0]
	return err
}
