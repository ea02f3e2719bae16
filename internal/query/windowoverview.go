package query

import "sort"

// WindowOverview is the overview's histogram over a window instead of the
// whole run: the same basis (request starts, else server span starts),
// bins of BinSeconds from From. The page draws it as a track on the shared
// time axis, under the whole-run overview that stays the brush.
type WindowOverview struct {
	Overview
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// windowOverview answers "window_overview".
func (e *Engine) windowOverview(a Args) (WindowOverview, error) {
	w, err := e.window(a)
	if err != nil {
		return WindowOverview{}, err
	}
	bins := a.Bins
	if bins < 1 {
		bins = DefaultOverviewBins
	}
	span := w.toNS - w.fromNS
	o := WindowOverview{Overview: Overview{Duration: e.durationS, BinSeconds: seconds(span) / float64(bins), Counts: make([]int, bins)}, From: w.from, To: w.to}
	add := func(start int64) {
		if start < w.fromNS || start > w.toNS {
			return
		}
		b := 0
		if span > 0 {
			b = min(int(float64(start-w.fromNS)*float64(bins)/float64(span)), bins-1)
		}
		o.Counts[b]++
	}
	switch {
	case e.r.N > 0:
		o.Basis = "request starts"
		starts := e.r.Start // sorted by start
		for i := sort.Search(len(starts), func(i int) bool { return starts[i] >= w.fromNS }); i < len(starts) && starts[i] <= w.toNS; i++ {
			add(starts[i])
		}
	case len(e.c.ServerSpans.Start) > 0:
		o.Basis = "server span starts"
		for _, start := range e.c.ServerSpans.Start {
			add(start)
		}
	}
	for _, n := range o.Counts {
		o.Max = max(o.Max, n)
	}
	return o, nil
}
