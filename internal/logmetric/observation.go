package logmetric

import (
	"errors"
	"fmt"
	"time"
)

// Generator decodes one engine's worker-log lines. Decode is pure: one line
// in, at most one observation out; no clocks, no joins, no file system, no
// state carried between lines. It must not retain line after returning.
//
// Decode returns ok=false for lines it does not recognise or that carry no
// valid value, and an error only for a recognised record that cannot be
// represented (for example an impossible calendar date).
type Generator interface {
	Name() string
	Definitions() []Definition
	Decode(line []byte) (obs Observation, ok bool, err error)
}

// Observation is what one log line records: a timestamp as written, the
// recorded scope and values by definition name. File, worker and host come
// from the reader's SourceInfo, never from the generator.
type Observation struct {
	Time Stamp
	Rank Rank
	// Process is the recorded process identity; "" means none was logged
	// (the normalized value stays null) and file and rank still isolate it.
	Process string
	// Labels further scope the series (phase, tp, ep, …). Keys are unique.
	Labels []Label
	Values []Value
	// Dropped, when set, says why values the line recorded were left out
	// (a field failing validation), also with ok=false when none is kept;
	// Read counts the line as rejected (see Losses).
	Dropped string
}

// Rank is a recorded rank in its namespace. Kind "" means no rank was logged;
// Index is then meaningless. Ranks of different kinds are never equated.
type Rank struct {
	Kind  string
	Index int
}

// Rank namespaces used by the registered generators.
const (
	RankKindDP          = "dp"
	RankKindAttentionTP = "attention_tp"
)

// Known reports whether a rank was recorded.
func (r Rank) Known() bool { return r.Kind != "" }

func (r Rank) String() string {
	if !r.Known() {
		return "-"
	}
	return fmt.Sprintf("%s:%d", r.Kind, r.Index)
}

// Label is one scope dimension as logged.
type Label struct {
	Key, Value string
}

// Value is one metric value of an observation. Null is only meaningful for
// setting definitions, where it clears the previously held setting.
type Value struct {
	Name   string
	Number float64
	Null   bool
}

// Stamp is a timestamp as the log wrote it. Without Zoned it is a naive local
// wall time that needs the worker's timezone to become an instant.
type Stamp struct {
	Year       int
	Month      time.Month
	Day        int
	Hour       int
	Minute     int
	Second     int
	Nanosecond int // from the first nine fractional digits
	// FracDigits is the number of fractional-second digits written; the
	// time resolution is 10^-FracDigits seconds (1 s without a fraction).
	FracDigits int
	Zoned      bool
	// OffsetSeconds east of UTC, when Zoned.
	OffsetSeconds int
}

// ResolutionNS is the stamp's resolution in nanoseconds; 0 when finer than 1 ns.
func (s Stamp) ResolutionNS() int64 {
	return resolutionNS(s.FracDigits)
}

func resolutionNS(digits int) int64 {
	if digits > 9 {
		return 0
	}
	ns := int64(1_000_000_000)
	for range digits {
		ns /= 10
	}
	return ns
}

// ErrInvalidStamp reports a timestamp that has the right shape but names an
// impossible or unrepresentable instant.
var ErrInvalidStamp = errors.New("invalid timestamp")

// Validate checks calendar ranges, so that no impossible date is silently
// normalised into a different instant.
func (s Stamp) Validate() error {
	switch {
	case s.Month < time.January || s.Month > time.December,
		s.Day < 1 || s.Day > daysIn(s.Month, s.Year),
		s.Hour < 0 || s.Hour > 23, s.Minute < 0 || s.Minute > 59,
		s.Second < 0 || s.Second > 59,
		s.Nanosecond < 0 || s.Nanosecond > 999_999_999,
		s.FracDigits < 0:
		return fmt.Errorf("%w: %s", ErrInvalidStamp, s)
	case s.Zoned && (s.OffsetSeconds <= -24*3600 || s.OffsetSeconds >= 24*3600):
		return fmt.Errorf("%w: offset %d s", ErrInvalidStamp, s.OffsetSeconds)
	}
	return nil
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func (s Stamp) String() string {
	str := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", s.Year, int(s.Month), s.Day, s.Hour, s.Minute, s.Second)
	if s.FracDigits > 0 {
		str += fmt.Sprintf(".%09d(%d digits)", s.Nanosecond, s.FracDigits)
	}
	if s.Zoned {
		str += fmt.Sprintf(" %+ds", s.OffsetSeconds)
	}
	return str
}

// Instants representable as int64 epoch nanoseconds.
var (
	minInstant = time.Unix(0, -1<<63)
	maxInstant = time.Unix(0, 1<<63-1)
)

// EpochNS aligns the stamp: zoned stamps use their own offset, naive stamps
// need loc. aligned=false means a naive stamp without a location.
func (s Stamp) EpochNS(loc *time.Location) (ns int64, aligned bool, err error) {
	if err := s.Validate(); err != nil {
		return 0, false, err
	}
	switch {
	case s.Zoned:
		loc = time.FixedZone("", s.OffsetSeconds)
	case loc == nil:
		return 0, false, nil
	}
	t := time.Date(s.Year, s.Month, s.Day, s.Hour, s.Minute, s.Second, s.Nanosecond, loc)
	if t.Before(minInstant) || t.After(maxInstant) {
		return 0, false, fmt.Errorf("%w: %s is outside the int64 nanosecond range", ErrInvalidStamp, s)
	}
	return t.UnixNano(), true, nil
}

// ParseStamp reads "YYYY-MM-DD HH:MM:SS" at the start of b, optionally
// followed by fracSep and one or more digits. It returns the number of bytes
// consumed, 0 when b does not start with that shape. The calendar is not
// validated here; EpochNS and Validate do that.
func ParseStamp(b []byte, fracSep byte) (Stamp, int) {
	const n = len("2006-01-02 15:04:05")
	if len(b) < n || b[4] != '-' || b[7] != '-' || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return Stamp{}, 0
	}
	var v [6]int
	for i, f := range [...]struct{ at, width int }{{0, 4}, {5, 2}, {8, 2}, {11, 2}, {14, 2}, {17, 2}} {
		var ok bool
		if v[i], ok = digits(b[f.at : f.at+f.width]); !ok {
			return Stamp{}, 0
		}
	}
	s := Stamp{Year: v[0], Month: time.Month(v[1]), Day: v[2], Hour: v[3], Minute: v[4], Second: v[5]}
	used := n
	if fracSep != 0 && len(b) > n+1 && b[n] == fracSep && isDigit(b[n+1]) {
		used++
		scale := 100_000_000
		for used < len(b) && isDigit(b[used]) {
			if s.FracDigits < 9 {
				s.Nanosecond += int(b[used]-'0') * scale
				scale /= 10
			}
			s.FracDigits++
			used++
		}
	}
	return s, used
}

func digits(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
