package logmetric

import "slices"

// Clip keeps what a report window [startNS, endNS] shows. Samples and events
// outside it are dropped. A setting keeps the last timestamp group before the
// window at its original (earlier) time — the evidence for a held
// configuration, not an invented point at the window start — plus every
// setting inside the window. Series left without points disappear, and
// references to them become -1.
func (r *Result) Clip(startNS, endNS int64) *Result {
	out := &Result{
		Warnings:  slices.Clone(r.Warnings),
		Unaligned: r.Unaligned,
		LongLines: r.LongLines,
		Lines:     r.Lines,
		Losses:    r.Losses,
	}
	if w := r.Window; w != nil && w.StartNS <= endNS && w.EndNS >= startNS {
		out.Window = &Window{StartNS: max(w.StartNS, startNS), EndNS: min(w.EndNS, endNS)}
	}
	newIndex := make([]int, len(r.Series))
	for i, s := range r.Series {
		from := startNS
		if s.Definition.Temporal == TemporalSetting {
			from = carriedFrom(s.Points, startNS)
		}
		var kept []Point
		for _, p := range s.Points {
			if p.TimeNS >= from && p.TimeNS <= endNS {
				kept = append(kept, p)
			}
		}
		newIndex[i] = -1
		if len(kept) == 0 {
			continue
		}
		s.Points = kept
		s.Labels = slices.Clone(s.Labels)
		if s.Reference != nil {
			ref := *s.Reference
			s.Reference = &ref
		}
		newIndex[i] = len(out.Series)
		out.Series = append(out.Series, s)
	}
	for i := range out.Series {
		if ref := out.Series[i].Reference; ref != nil && ref.Series >= 0 {
			ref.Series = newIndex[ref.Series]
		}
	}
	return out
}

// carriedFrom is the time of the last setting group before startNS, or
// startNS when there is none or a setting is recorded exactly at startNS (the
// earlier one is then never in effect inside the window).
func carriedFrom(points []Point, startNS int64) int64 {
	from := startNS
	for _, p := range points {
		switch {
		case p.TimeNS < startNS:
			from = p.TimeNS // points are in time order: the last one wins
		case p.TimeNS == startNS:
			return startNS
		}
	}
	return from
}

// Merge concatenates per-file results, keeping references pointing at the
// same series (a reference never crosses files, so no new pairing happens).
func Merge(results ...*Result) *Result {
	out := &Result{}
	for _, r := range results {
		base := len(out.Series)
		for _, s := range r.Series {
			s.Labels = slices.Clone(s.Labels)
			s.Points = slices.Clone(s.Points)
			if s.Reference != nil {
				ref := *s.Reference
				if ref.Series >= 0 {
					ref.Series += base
				}
				s.Reference = &ref
			}
			out.Series = append(out.Series, s)
		}
		for _, w := range r.Warnings {
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
		out.Unaligned += r.Unaligned
		out.LongLines += r.LongLines
		out.Losses.add(r.Losses)
		out.Lines += r.Lines
		if w := r.Window; w != nil {
			if out.Window == nil {
				out.Window = &Window{StartNS: w.StartNS, EndNS: w.EndNS}
			} else {
				out.Window.StartNS = min(out.Window.StartNS, w.StartNS)
				out.Window.EndNS = max(out.Window.EndNS, w.EndNS)
			}
		}
	}
	return out
}
