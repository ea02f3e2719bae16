package jsonscan

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

func TestScaled(t *testing.T) {
	tests := []struct {
		lit   string
		shift int
		mode  Rounding
		want  int64
		exact bool
		err   error
	}{
		{"0", 9, Truncate, 0, true, nil},
		{"-0.0", 9, Truncate, 0, true, nil},
		{"1759813207532900363", 0, Truncate, 1759813207532900363, true, nil},
		{"1.759813207532900363e18", 0, Truncate, 1759813207532900363, true, nil},
		{"1789642701.1234567", 9, Truncate, 1789642701123456700, true, nil},
		{"1789642701.123456789999", 9, Truncate, 1789642701123456789, false, nil},
		{"1789642701.123456789999", 9, Nearest, 1789642701123456790, false, nil},
		{"255.88656799999998", 6, Nearest, 255886568, false, nil},
		{"255.88656799999998", 6, Truncate, 255886567, false, nil},
		{"0.0000005", 6, Nearest, 1, false, nil},
		{"0.0000004999", 6, Nearest, 0, false, nil},
		{"-2.5", 0, Nearest, -3, false, nil},
		{"1e-400", 9, Nearest, 0, false, nil},
		{"0e999999999999999999999", 0, Truncate, 0, true, nil},
		{"9223372036854775807", 0, Truncate, math.MaxInt64, true, nil},
		{"9223372036854775807.5", 0, Nearest, 0, false, ErrRange},
		{"9223372036854775808", 0, Truncate, 0, false, ErrRange},
		{"1e19", 0, Truncate, 0, false, ErrRange},
		{"1e99999999999999999999", 0, Truncate, 0, false, ErrRange},
		{"NaN", 0, Truncate, 0, false, ErrNotFinite},
		{"-Infinity", 0, Truncate, 0, false, ErrNotFinite},
		{"1.", 0, Truncate, 0, false, ErrNotNumber},
		{"abc", 0, Truncate, 0, false, ErrNotNumber},
	}
	for _, tc := range tests {
		got, exact, err := Scaled([]byte(tc.lit), tc.shift, tc.mode)
		if !errors.Is(err, tc.err) || (err == nil && (got != tc.want || exact != tc.exact)) {
			t.Errorf("Scaled(%s, %d, %d) = %d, %v, %v; want %d, %v, %v", tc.lit, tc.shift, tc.mode, got, exact, err, tc.want, tc.exact, tc.err)
		}
	}
}

func TestInt(t *testing.T) {
	for lit, want := range map[string]int64{"12": 12, "12.0": 12, "1.2e1": 12, "-3": -3} {
		if got, err := Int([]byte(lit)); err != nil || got != want {
			t.Errorf("Int(%s) = %d, %v; want %d", lit, got, err, want)
		}
	}
	if _, err := Int([]byte("1.5")); err == nil {
		t.Error("Int(1.5) accepted")
	}
}

func TestScaledFloat(t *testing.T) {
	tests := []struct {
		lit   string
		shift int
		want  float64
	}{
		{"1.1", 3, 1100},
		{"0.9", 3, 900},
		{"0.001", 3, 1},
		{"-0", 3, math.Copysign(0, -1)},
		{"1e400", 0, math.Inf(1)},
	}
	for _, tc := range tests {
		got, err := ScaledFloat([]byte(tc.lit), tc.shift)
		if err != nil || got != tc.want || math.Signbit(got) != math.Signbit(tc.want) {
			t.Errorf("ScaledFloat(%s, %d) = %v, %v; want %v", tc.lit, tc.shift, got, err, tc.want)
		}
	}
	if got, _ := ScaledFloat([]byte("NaN"), 3); !math.IsNaN(got) {
		t.Errorf("ScaledFloat(NaN) = %v", got)
	}
}

func TestCanonical(t *testing.T) {
	same := []string{"4", "4.0", "40e-1", "0.4E1", "4.000e0"}
	for _, lit := range same {
		if got, err := Canonical([]byte(lit)); err != nil || got != "4e0" {
			t.Errorf("Canonical(%s) = %q, %v; want 4e0", lit, got, err)
		}
	}
	for lit, want := range map[string]string{"0": "0", "-0.0": "0", "-12.50": "-125e-1", "NaN": "NaN"} {
		if got, _ := Canonical([]byte(lit)); got != want {
			t.Errorf("Canonical(%s) = %q; want %q", lit, got, want)
		}
	}
}

// FuzzScaled checks the decimal arithmetic against math/big on literals
// with bounded exponents.
func FuzzScaled(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-2.5e3", "255.88656799999998", "1789642701.1234567", "9223372036854775807", "1e-7"} {
		f.Add(s, 6, true)
	}
	f.Fuzz(func(t *testing.T, lit string, shift int, nearest bool) {
		defer fuzzlimit.Start(t)()
		s := Scanner{Dialect: Python}
		s.Reset([]byte(lit))
		num, err := s.Num()
		if err != nil || s.End() != nil || len(lit) > 64 || shift < -30 || shift > 30 {
			return
		}
		mode := Truncate
		if nearest {
			mode = Nearest
		}
		got, exact, err := Scaled(num, shift, mode)
		r, ok := new(big.Rat).SetString(lit)
		if !ok || bigExponent(lit) {
			return
		}
		pow := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(shift, -shift))), nil))
		if shift >= 0 {
			r.Mul(r, pow)
		} else {
			r.Quo(r, pow)
		}
		q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
		wantExact := m.Sign() == 0
		if mode == Nearest {
			twice := new(big.Int).Abs(new(big.Int).Mul(m, big.NewInt(2)))
			if twice.Cmp(r.Denom()) >= 0 {
				q.Add(q, big.NewInt(int64(r.Sign())))
			}
		}
		if !q.IsInt64() {
			if err == nil {
				t.Fatalf("Scaled(%s, %d) = %d, want out of range", lit, shift, got)
			}
			return
		}
		if err != nil || got != q.Int64() || exact != wantExact {
			t.Fatalf("Scaled(%s, %d, %d) = %d, %v, %v; want %d, %v", lit, shift, mode, got, exact, err, q.Int64(), wantExact)
		}
	})
}

func bigExponent(lit string) bool {
	for i := range len(lit) {
		if lit[i] == 'e' || lit[i] == 'E' {
			return len(lit)-i > 4
		}
	}
	return false
}
