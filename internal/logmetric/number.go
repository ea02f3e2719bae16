package logmetric

import (
	"math"
	"strconv"
)

// maxExactCount is the largest count a float64 point holds exactly (2^53).
// A larger logged count would be rounded, i.e. changed, so it is rejected.
const maxExactCount = 1 << 53

// ParseCount accepts one or more ASCII decimal digits (no sign, no
// separators) whose value is at most 2^53.
func ParseCount(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if v > maxExactCount {
		return 0, false
	}
	return float64(v), true
}

// ParseDecimal accepts an unsigned decimal as loggers print it — digits with
// an optional fraction, a leading-dot fraction, an optional exponent — and
// returns it when finite. Signs, "inf", "nan", hex and underscores are
// rejected.
func ParseDecimal(b []byte) (float64, bool) {
	if !isUnsignedDecimal(b) {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// isUnsignedDecimal matches (\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)? in full.
func isUnsignedDecimal(b []byte) bool {
	i, intDigits := 0, 0
	for i < len(b) && isDigit(b[i]) {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && isDigit(b[i]) {
			i++
			fracDigits++
		}
	}
	if intDigits == 0 && fracDigits == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		expDigits := 0
		for i < len(b) && isDigit(b[i]) {
			i++
			expDigits++
		}
		if expDigits == 0 {
			return false
		}
	}
	return i == len(b)
}
