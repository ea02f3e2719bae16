package logmetric

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// LimitKind classifies the limit values visible in a time range.
type LimitKind uint8

const (
	// LimitUnavailable: no valid limit value in the range.
	LimitUnavailable LimitKind = iota
	// LimitConstant: one distinct value (LimitMin == LimitMax).
	LimitConstant
	// LimitChanged: several distinct values, from LimitMin to LimitMax.
	LimitChanged
)

// Capacity summarises an observed series against its limit or pool over a
// time range, as the legend shows it. It never averages over time and never
// divides unrelated maxima.
type Capacity struct {
	// Samples is the number n of in-range observed values; Peak is valid
	// only when it is positive.
	Samples int
	Peak    float64
	// Limit describes the distinct valid reference values shown in the range
	// (a held setting counts from the range start).
	Limit              LimitKind
	LimitMin, LimitMax float64
	// Unavailable is the number k of samples without a valid positive limit
	// at their own time.
	Unavailable int
	// HighestUsage is the maximum over samples of value / that sample's own
	// valid positive limit, as a fraction; valid only when HasUsage.
	HighestUsage float64
	HasUsage     bool
}

// SummarizeCapacity computes the capacity summary of observed over
// [fromNS, toNS] (inclusive). reference is the paired series, or nil when the
// reference is missing in the observed series' scope.
//
// The limit at a sample's time is, for a setting reference, the last
// reference timestamp at or before the sample; for any other reference, a
// reference point at exactly the sample's timestamp. A null setting, a
// non-positive value or a timestamp with conflicting reference values gives
// no valid limit. In the observed series, a sample timestamp with conflicting
// values is a gap and identical duplicates count once; events count every
// point.
func SummarizeCapacity(observed, reference *Series, fromNS, toNS int64) Capacity {
	var c Capacity
	samples := observedInRange(observed, fromNS, toNS)
	var groups []refGroup
	setting := false
	if reference != nil {
		groups = groupReference(reference.Points)
		setting = reference.Definition.Temporal == TemporalSetting
	}
	for _, p := range samples {
		if c.Samples == 0 || p.Value > c.Peak {
			c.Peak = p.Value
		}
		c.Samples++
		limit, ok := limitAt(groups, p.TimeNS, setting)
		if !ok || limit <= 0 {
			c.Unavailable++
			continue
		}
		if u := p.Value / limit; !c.HasUsage || u > c.HighestUsage {
			c.HighestUsage, c.HasUsage = u, true
		}
	}
	distinct := limitValuesInRange(groups, fromNS, toNS, setting)
	switch len(distinct) {
	case 0:
		c.Limit = LimitUnavailable
	case 1:
		c.Limit, c.LimitMin, c.LimitMax = LimitConstant, distinct[0], distinct[0]
	default:
		c.Limit, c.LimitMin, c.LimitMax = LimitChanged, distinct[0], distinct[len(distinct)-1]
	}
	return c
}

func observedInRange(s *Series, fromNS, toNS int64) []Point {
	pts := sortedPoints(s.Points)
	var out []Point
	for i := 0; i < len(pts); {
		j := i
		for j < len(pts) && pts[j].TimeNS == pts[i].TimeNS {
			j++
		}
		group := pts[i:j]
		i = j
		if group[0].TimeNS < fromNS || group[0].TimeNS > toNS {
			continue
		}
		if s.Definition.Temporal == TemporalEvent {
			for _, p := range group {
				if !p.Null {
					out = append(out, p)
				}
			}
			continue
		}
		if v, ok := singleValue(group); ok {
			out = append(out, Point{TimeNS: group[0].TimeNS, Value: v})
		}
	}
	return out
}

type refGroup struct {
	timeNS int64
	value  float64
	valid  bool // false: null or conflicting values at this timestamp
}

func groupReference(points []Point) []refGroup {
	pts := sortedPoints(points)
	var out []refGroup
	for i := 0; i < len(pts); {
		j := i
		for j < len(pts) && pts[j].TimeNS == pts[i].TimeNS {
			j++
		}
		v, ok := singleValue(pts[i:j])
		out = append(out, refGroup{timeNS: pts[i].TimeNS, value: v, valid: ok})
		i = j
	}
	return out
}

// singleValue returns the one value recorded at a timestamp; a null, or two
// different values, mean there is none. Numeric equality makes 0 equal -0.
func singleValue(group []Point) (float64, bool) {
	for _, p := range group {
		if p.Null || p.Value != group[0].Value {
			return 0, false
		}
	}
	return group[0].Value, true
}

func limitAt(groups []refGroup, t int64, setting bool) (float64, bool) {
	// i is the first group after t.
	i, _ := slices.BinarySearchFunc(groups, t, func(g refGroup, t int64) int {
		if g.timeNS <= t {
			return -1
		}
		return 1
	})
	if i == 0 {
		return 0, false
	}
	g := groups[i-1]
	if !setting && g.timeNS != t {
		return 0, false
	}
	return g.value, g.valid
}

func limitValuesInRange(groups []refGroup, fromNS, toNS int64, setting bool) []float64 {
	var vals []float64
	for i, g := range groups {
		inRange := g.timeNS >= fromNS && g.timeNS <= toNS
		// A held setting established before the range is shown from its start.
		carried := setting && g.timeNS < fromNS && (i+1 == len(groups) || groups[i+1].timeNS > fromNS)
		if g.valid && (inRange || carried) {
			vals = append(vals, g.value)
		}
	}
	slices.Sort(vals)
	return slices.Compact(vals)
}

func sortedPoints(pts []Point) []Point {
	if slices.IsSortedFunc(pts, comparePointTime) {
		return pts
	}
	pts = slices.Clone(pts)
	slices.SortStableFunc(pts, comparePointTime)
	return pts
}

func comparePointTime(a, b Point) int {
	switch {
	case a.TimeNS < b.TimeNS:
		return -1
	case a.TimeNS > b.TimeNS:
		return 1
	}
	return 0
}

// LimitText is the legend's limit value: "8", "8–16 (changed)" or
// "unavailable".
func (c Capacity) LimitText() string {
	switch c.Limit {
	case LimitConstant:
		return FormatQuantity(c.LimitMin)
	case LimitChanged:
		return FormatQuantity(c.LimitMin) + "–" + FormatQuantity(c.LimitMax) + " (changed)"
	}
	return "unavailable"
}

// FormatQuantity prints an exact count or value the en-US way with at most
// four fraction digits: 6, 4,096, 0.1235.
func FormatQuantity(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg && s != "0" {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// FormatPercent prints a fraction as a percentage with at most one fraction
// digit: 0.75 → "75%".
func FormatPercent(fraction float64) string {
	if math.IsNaN(fraction) || math.IsInf(fraction, 0) {
		return "unavailable"
	}
	s := strconv.FormatFloat(fraction*100, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + "%"
}
