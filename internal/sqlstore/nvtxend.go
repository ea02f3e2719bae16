package sqlstore

import "math"

// nvtx_ranges keeps a range's duration as integer nanoseconds and computes
// its "end" column rather than storing it: an 8-byte REAL in every row was
// a quarter of an Nsight store, while a duration takes 3 or 4 bytes. The
// column's expression,
//
//	coalesce(end_exact, (round(start * 1e9) + duration_ns) / 1e9)
//
// recovers the start's nanoseconds from its seconds and divides the end's
// nanoseconds once, as the engine computes every time (writer.seconds), so
// the end read back is the engine's to the bit. Where that cannot hold (a
// start so far from the origin that its seconds no longer name one
// nanosecond, about 13 days), the row keeps its end in end_exact; the
// writer checks every row, so a value is never computed wrong.

// computedEnd is what the "end" expression gives for start and durNS, and
// false when round() might not recover the start's nanoseconds: the
// product must lie within a quarter of a whole number, so that however
// round() resolves halves or large values it lands on that number.
func computedEnd(start float64, durNS int64) (float64, bool) {
	ns := float64(start * 1e9) // the conversion keeps the product from fusing
	r := math.Round(ns)
	if math.Abs(ns-r) >= 0.25 || math.Abs(r) >= 1<<50 {
		return 0, false
	}
	return (r + float64(durNS)) / 1e9, true
}

// endIsComputed is whether a row with this start and duration needs no
// end_exact: the expression gives end exactly.
func endIsComputed(start, end float64, durNS int64) bool {
	v, ok := computedEnd(start, durNS)
	return ok && math.Float64bits(v) == math.Float64bits(end)
}

// endComputedFast is a cheaper sufficient test for endIsComputed, for a
// start of startNS whole nanoseconds from the origin (start being
// startNS / 1e9): when start * 1e9 lies within a quarter of startNS, round()
// gives startNS itself, and below 2^50 startNS and startNS + durNS are
// exact doubles, so the expression divides the end's own nanoseconds, as
// the engine does. It spares each row a rounding and the end's division.
// False says nothing: endIsComputed decides.
func endComputedFast(start float64, startNS, durNS int64) bool {
	const lim = 1 << 50
	if startNS <= -lim || startNS >= lim || durNS <= -lim || durNS >= lim {
		return false
	}
	ns := float64(start * 1e9) // the conversion keeps the product from fusing
	d := ns - float64(startNS)
	return d < 0.25 && d > -0.25
}
