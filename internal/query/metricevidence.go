package query

import "github.com/dsight/dsight/internal/pyramid"

// A metric point in an answer is [elapsed_s, value, source_id,
// source_row_or_line]: the seed's point, so that every value traces to the
// file and row (Tachometer, zero-based) or line (worker logs, one-based) it
// was read from. Evidence the summary does not hold (an envelope point, a
// report built before rows kept it) is null, never a guess.

// evidencePoint is row k of view v with its evidence.
func evidencePoint(v *pyramid.View, k int) [4]any {
	p := point(v.Times[k], v.Values[k], v.Valid[k])
	out := [4]any{p[0], p[1], nil, nil}
	if k < len(v.Sources) && k < len(v.Lines) {
		out[2], out[3] = evidenceValue(v.Sources[k]), evidenceValue(v.Lines[k])
	}
	return out
}

// rowPoint is one exact row with its evidence.
func rowPoint(r pyramid.Row) [4]any {
	p := point(r.T, r.V, r.Valid)
	return [4]any{p[0], p[1], evidenceValue(r.Source), evidenceValue(r.Line)}
}

func evidenceValue(x int64) any {
	if x < 0 {
		return nil
	}
	return x
}
