package jsonscan

import (
	"errors"
	"math"
	"strconv"
)

// Rounding says what Scaled does with digits below the unit.
type Rounding uint8

const (
	// Truncate drops them (toward zero), as Python's int(Decimal) does.
	Truncate Rounding = iota
	// Nearest rounds to the nearest integer, halves away from zero.
	Nearest
)

// Errors from number conversions.
var (
	ErrNotFinite = errors.New("not a finite number")
	ErrRange     = errors.New("out of the int64 range")
	ErrNotNumber = errors.New("not a number literal")
)

// exponentCap saturates absurd exponents; beyond it every conversion
// overflows or rounds to zero anyway, and the cap keeps arithmetic in int64.
const exponentCap = 1 << 40

// decimal is a number literal split into its significant digits and a
// power of ten: value = ±digits × 10^exp. digits has no leading zeros; an
// empty digits is zero.
type decimal struct {
	neg    bool
	digits []byte
	exp    int64
}

// parseDecimal splits a finite JSON number literal. buf is reused for the
// digit string when the literal has a fraction.
func parseDecimal(lit []byte, buf []byte) (decimal, error) {
	var d decimal
	i := 0
	if i < len(lit) && lit[i] == '-' {
		d.neg = true
		i++
	}
	if i < len(lit) && (lit[i] == 'N' || lit[i] == 'I') {
		return d, ErrNotFinite
	}
	intStart := i
	for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
		i++
	}
	intPart := lit[intStart:i]
	var frac []byte
	if i < len(lit) && lit[i] == '.' {
		i++
		fs := i
		for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
			i++
		}
		frac = lit[fs:i]
	}
	if len(intPart) == 0 || (len(frac) == 0 && i > 0 && lit[i-1] == '.') {
		return d, ErrNotNumber
	}
	var exp int64
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		neg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			neg = lit[i] == '-'
			i++
		}
		if i >= len(lit) {
			return d, ErrNotNumber
		}
		for ; i < len(lit) && lit[i] >= '0' && lit[i] <= '9'; i++ {
			if exp < exponentCap {
				exp = exp*10 + int64(lit[i]-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	if i != len(lit) {
		return d, ErrNotNumber
	}
	digits := intPart
	if len(frac) > 0 {
		digits = append(append(buf[:0], intPart...), frac...)
	}
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	d.digits = digits
	d.exp = exp - int64(len(frac))
	return d, nil
}

// Scaled returns lit × 10^shift as an int64, computed in decimal. exact
// reports that no nonzero digit fell below the unit. NaN and infinities give
// ErrNotFinite; results beyond int64 give ErrRange.
func Scaled(lit []byte, shift int, mode Rounding) (v int64, exact bool, err error) {
	var buf [40]byte
	d, err := parseDecimal(lit, buf[:0])
	if err != nil {
		return 0, false, err
	}
	if len(d.digits) == 0 {
		return 0, true, nil
	}
	e := d.exp + int64(shift)
	var whole []byte
	exact = true
	roundUp := false
	if e >= 0 {
		if int64(len(d.digits))+e > 19 {
			return 0, false, ErrRange
		}
		whole = d.digits
	} else {
		cut := int64(len(d.digits)) + e // digits kept above the unit
		var dropped []byte
		first := byte('0')
		if cut > 0 {
			whole, dropped = d.digits[:cut], d.digits[cut:]
			first = dropped[0]
		} else {
			dropped = d.digits
			if cut == 0 {
				first = dropped[0]
			}
		}
		for _, c := range dropped {
			if c != '0' {
				exact = false
				break
			}
		}
		roundUp = mode == Nearest && first >= '5'
		e = 0
	}
	if len(whole) > 19 {
		return 0, false, ErrRange
	}
	var u uint64
	for _, c := range whole {
		u = u*10 + uint64(c-'0')
	}
	for ; e > 0; e-- {
		u *= 10 // at most 19 digits in total, so no uint64 overflow
	}
	if roundUp {
		u++
	}
	if u > math.MaxInt64 {
		return 0, false, ErrRange
	}
	if d.neg {
		return -int64(u), exact, nil
	}
	return int64(u), exact, nil
}

// Int converts an integral literal ("12", "12.0", "1.2e1") to int64.
func Int(lit []byte) (int64, error) {
	v, exact, err := Scaled(lit, 0, Truncate)
	if err != nil {
		return 0, err
	}
	if !exact {
		return 0, errors.New("not an integer")
	}
	return v, nil
}

// Float converts a literal to the nearest float64; 1e400 becomes +Inf, as
// Python reads it.
func Float(lit []byte) (float64, error) {
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, ErrNotNumber
	}
	return f, nil
}

// ScaledFloat returns the float64 nearest to lit × 10^shift, scaling in
// decimal first so that e.g. 1.1 seconds is exactly 1100 ms.
func ScaledFloat(lit []byte, shift int) (float64, error) {
	var buf [40]byte
	d, err := parseDecimal(lit, buf[:0])
	if errors.Is(err, ErrNotFinite) {
		return Float(lit)
	}
	if err != nil {
		return 0, err
	}
	if len(d.digits) == 0 {
		if d.neg {
			return math.Copysign(0, -1), nil
		}
		return 0, nil
	}
	text := make([]byte, 0, len(d.digits)+24)
	if d.neg {
		text = append(text, '-')
	}
	text = append(text, d.digits...)
	text = append(text, 'e')
	text = strconv.AppendInt(text, d.exp+int64(shift), 10)
	return Float(text)
}

// Canonical returns a text that is equal for equal numeric values ("4",
// "4.0", "40e-1" all give "4e0"), for use as an identity key.
func Canonical(lit []byte) (string, error) {
	var buf [40]byte
	d, err := parseDecimal(lit, buf[:0])
	if err != nil {
		if errors.Is(err, ErrNotFinite) {
			return string(lit), nil
		}
		return "", err
	}
	if len(d.digits) == 0 {
		return "0", nil
	}
	digits, exp := d.digits, d.exp
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	out := make([]byte, 0, len(digits)+24)
	if d.neg {
		out = append(out, '-')
	}
	out = append(out, digits...)
	out = append(out, 'e')
	out = strconv.AppendInt(out, exp, 10)
	return string(out), nil
}

// isZero reports whether a number literal has the value zero.
func isZero(lit []byte) bool {
	for _, c := range lit {
		switch {
		case c >= '1' && c <= '9':
			return false
		case c == 'e' || c == 'E':
			return true
		case c == 'N' || c == 'I':
			return false
		}
	}
	return true
}

// Num consumes a number and returns its literal: RFC 8259 grammar, and in
// the Python dialect NaN, Infinity and -Infinity.
func (s *Scanner) Num() ([]byte, error) {
	s.space()
	return s.number()
}

// number reads a number at the current position (no leading whitespace).
func (s *Scanner) number() ([]byte, error) {
	d, start := s.data, s.pos
	i := start
	if s.Dialect == Python && i < len(d) && d[i] == 'N' {
		if err := s.Literal("NaN"); err != nil {
			return nil, err
		}
		return d[start:s.pos], nil
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	if s.Dialect == Python && i < len(d) && d[i] == 'I' {
		s.pos = i
		if err := s.Literal("Infinity"); err != nil {
			return nil, err
		}
		return d[start:s.pos], nil
	}
	switch {
	case i >= len(d):
		s.pos = i
		return nil, s.eof()
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		i = digits(d, i+1)
	default:
		s.pos = i
		return nil, s.fail(errNumber, d[i], "")
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			s.pos = j
			return nil, s.unexpected(errFraction)
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			s.pos = j
			return nil, s.unexpected(errExponent)
		}
		i = j
	}
	s.pos = i
	return d[start:i], nil
}

// digits returns the index of the first non-digit at or after i.
func digits(d []byte, i int) int {
	for i < len(d) && d[i]-'0' < 10 {
		i++
	}
	return i
}

// IsNumber reports whether b is exactly one RFC 8259 number.
func IsNumber(b []byte) bool {
	s := Scanner{data: b}
	_, err := s.number()
	return err == nil && s.pos == len(b)
}
