package dynamolog

import (
	"bytes"
	"github.com/dsight/dsight/internal/model"
	"time"
)

func newTimestamp(raw string) *model.Timestamp {
	ts := &model.Timestamp{Raw: raw}
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		ns := t.UnixNano()
		// UnixNano is undefined outside ±292 years; such a line is not
		// evidence of an epoch time.
		if y := t.Year(); y > 1677 && y < 2262 {
			ts.UnixNS = &ns
		}
	}
	return ts
}

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
