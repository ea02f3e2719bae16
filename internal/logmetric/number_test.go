package logmetric

import (
	"strings"
	"testing"
	"time"
)

func TestParseCount(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true}, {"4096", 4096, true}, {"007", 7, true},
		{"9007199254740992", 1 << 53, true},
		{"9007199254740993", 0, false}, // not exact as float64
		{"12345678901234567", 0, false},
		{"", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {"1.0", 0, false}, {"1e3", 0, false},
		{"1_000", 0, false}, {" 1", 0, false}, {"١", 0, false}, // Arabic-Indic digit: not ASCII
	}
	for _, tc := range tests {
		got, ok := ParseCount([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseCount(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0.19", 0.19, true}, {"7.29", 7.29, true}, {"1", 1, true}, {"1.", 1, true}, {".5", 0.5, true},
		{"1e3", 1000, true}, {"2.5E+1", 25, true}, {"1e-3", 0.001, true},
		{"", 0, false}, {".", 0, false}, {"e3", 0, false}, {"1e", 0, false}, {"1e+", 0, false},
		{"-1", 0, false}, {"+1", 0, false}, {"inf", 0, false}, {"NaN", 0, false}, {"0x10", 0, false},
		{"1_0", 0, false}, {"1e999", 0, false}, {"1.2.3", 0, false}, {"1 ", 0, false},
	}
	for _, tc := range tests {
		got, ok := ParseDecimal([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseDecimal(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseStamp(t *testing.T) {
	tests := []struct {
		in, sep string
		used    int
		want    string
		valid   bool
	}{
		{"2026-09-24 01:47:50.615 DP3", ".", 23, "2026-09-24 01:47:50.615000000(3 digits)", true},
		{"2026-09-24 01:47:50 DP3", ".", 19, "2026-09-24 01:47:50", true},
		{"2026-09-17 10:58:33,230  ATTN", ",", 23, "2026-09-17 10:58:33.230000000(3 digits)", true},
		{"2026-09-17 10:58:33,230", ".", 19, "2026-09-17 10:58:33", true},
		{"2026-09-17 10:58:33.", ".", 19, "2026-09-17 10:58:33", true},
		{"2026-09-17 10:58:33.1234567891234", ".", 33, "2026-09-17 10:58:33.123456789(13 digits)", true},
		{"2026-02-29 00:00:00", ".", 19, "2026-02-29 00:00:00", false},
		{"2028-02-29 23:59:59", ".", 19, "2028-02-29 23:59:59", true},
		{"2026-13-01 00:00:00", ".", 19, "2026-13-01 00:00:00", false},
		{"2026-01-01 24:00:00", ".", 19, "2026-01-01 24:00:00", false},
		{"2026-01-01 00:00:60", ".", 19, "2026-01-01 00:00:60", false},
		{"2026-1-01 00:00:00", ".", 0, "", false},
		{"2026-01-01T00:00:00", ".", 0, "", false},
		{"2026-01-01 00:00:0", ".", 0, "", false},
		{"", ".", 0, "", false},
	}
	for _, tc := range tests {
		s, used := ParseStamp([]byte(tc.in), tc.sep[0])
		if used != tc.used {
			t.Errorf("ParseStamp(%q) used %d, want %d", tc.in, used, tc.used)
			continue
		}
		if used == 0 {
			continue
		}
		if s.String() != tc.want {
			t.Errorf("ParseStamp(%q) = %s, want %s", tc.in, s, tc.want)
		}
		if err := s.Validate(); (err == nil) != tc.valid {
			t.Errorf("ParseStamp(%q).Validate() = %v, want valid=%v", tc.in, err, tc.valid)
		}
	}
	s, _ := ParseStamp([]byte("2026-09-17 10:58:33.23"), '.')
	if s.ResolutionNS() != 10_000_000 {
		t.Errorf("resolution of 2 digits = %d ns", s.ResolutionNS())
	}
	s.FracDigits = 12
	if s.ResolutionNS() != 0 {
		t.Errorf("sub-nanosecond resolution = %d ns, want 0", s.ResolutionNS())
	}
}

func TestStampEpochNS(t *testing.T) {
	s, _ := ParseStamp([]byte("2026-09-17 10:58:33.230"), '.')
	if _, aligned, err := s.EpochNS(nil); aligned || err != nil {
		t.Errorf("naive stamp without location: aligned=%v err=%v", aligned, err)
	}
	ns, aligned, err := s.EpochNS(time.UTC)
	if !aligned || err != nil || ns != time.Date(2026, 9, 17, 10, 58, 33, 230e6, time.UTC).UnixNano() {
		t.Errorf("UTC: %d %v %v", ns, aligned, err)
	}
	s.Zoned, s.OffsetSeconds = true, -4*3600
	ns, aligned, err = s.EpochNS(nil)
	if !aligned || err != nil || ns != time.Date(2026, 9, 17, 14, 58, 33, 230e6, time.UTC).UnixNano() {
		t.Errorf("zoned: %d %v %v", ns, aligned, err)
	}
	s.OffsetSeconds = 24 * 3600
	if _, _, err := s.EpochNS(nil); err == nil || !strings.Contains(err.Error(), "offset") {
		t.Errorf("24 h offset accepted: %v", err)
	}
}
