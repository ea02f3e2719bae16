package dynamolog

import (
	"bytes"
	"github.com/dsight/dsight/internal/model"
	"time"
)

func newTimestamp(raw string) *model.Timestamp {
	ts := &model.Timestamp{Raw: raw}
	if implausible(raw) {
		return ts // kept as text, never as a time (BadTimes counts it)
	}
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		ns := t.UnixNano()
		ts.UnixNS = &ns
	}
	return ts
}

// The plausibility rule for log timestamps: a date and time whose fields
// are a real calendar date and clock time (not 2026-13-45T25:61:61), in a
// year from MinYear to MaxYear (not 0001-01-01 or 9999-12-31; a benchmark
// run of these logs cannot have been written then). Such a timestamp is
// kept as recorded text, never as a time, and counted with its first line.
const (
	MinYear = 2000
	MaxYear = 2099
)

// implausible reports whether raw's leading YYYY-MM-DD[T ]hh:mm:ss fields
// break the rule above. A token too short to hold them is not judged.
func implausible(raw string) bool {
	if len(raw) < len("2006-01-02T15:04:05") {
		return false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range raw[i : i+n] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi, s := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2)
	if y < MinYear || y > MaxYear || mo < 1 || mo > 12 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60 {
		return true
	}
	return d < 1 || d > time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// BadTime reports a recorded timestamp that breaks the plausibility rule.
func BadTime(ts *model.Timestamp) bool { return ts != nil && implausible(ts.Raw) }

// lineTimestamp returns a text line's leading timestamp token, if its first
// field looks like a date.
func lineTimestamp(line []byte) *model.Timestamp {
	line = bytes.TrimLeft(stripANSI(line), " \t")
	end := bytes.IndexAny(line, " \t")
	if end < 0 {
		end = len(line)
	}
	tok := line[:end]
	if len(tok) < len("2006-01-02T15:04:05") || !isDigits(tok[:4]) || tok[4] != '-' {
		return nil
	}
	return newTimestamp(string(tok))
}

// recordTimestamp returns a JSON record's "time" (or "timestamp") string.
func recordTimestamp(f *lineFields) *model.Timestamp {
	for _, k := range []fieldKey{keyTime, keyTimestamp} {
		if s, ok := f.str(k); ok {
			return newTimestamp(s)
		}
	}
	return nil
}

// firstOffsetTimestamp finds the first ISO 8601 timestamp with an explicit
// offset or "Z" anywhere in s (YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)).
func firstOffsetTimestamp(s []byte) *model.Timestamp {
	for from := 0; ; {
		j := bytes.IndexByte(s[from:], 'T')
		if j < 0 {
			return nil
		}
		t := from + j
		if start := t - len("2006-01-02"); start >= 0 {
			if end := offsetTimestampAt(s, start); end > 0 {
				if ts := newTimestamp(string(s[start:end])); ts.UnixNS != nil {
					return ts
				}
			}
		}
		from = t + 1
	}
}

// offsetTimestampAt returns the end of a timestamp starting at i, or 0.
func offsetTimestampAt(s []byte, i int) int {
	const layout = "dddd-dd-ddTdd:dd:dd"
	if i+len(layout) > len(s) {
		return 0
	}
	for k := 0; k < len(layout); k++ {
		c := s[i+k]
		if layout[k] == 'd' {
			if c < '0' || c > '9' {
				return 0
			}
		} else if c != layout[k] {
			return 0
		}
	}
	j := i + len(layout)
	if j < len(s) && s[j] == '.' {
		k := j + 1
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j+1 {
			return 0
		}
		j = k
	}
	switch {
	case j < len(s) && s[j] == 'Z':
		return j + 1
	case j+6 <= len(s) && (s[j] == '+' || s[j] == '-') && isDigits(s[j+1:j+3]) && s[j+3] == ':' && isDigits(s[j+4:j+6]):
		return j + 6
	}
	return 0
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
