package logmetric

import "fmt"

// Losses counts what a read dropped or kept with a doubt, each with its
// first occurrence as "path:line: generator: reason". A generator reports a
// line it recognises as its own (a batch line, a request record) whose
// content fails validation (a NaN, negative, overflowing or fractional
// count, an ambiguous rank prefix, a torn record) through
// Observation.Dropped, with ok=false when nothing of the line is kept: Read
// counts it instead of dropping it without a word. An unreadable timestamp
// stays an error naming file:line in every generator (ErrInvalidStamp).
type Losses struct {
	// Rejected counts lines dropped whole or in part (Observation.Dropped)
	// for failing validation.
	Rejected      int
	FirstRejected string
	// Conflicts counts points recorded at the same time as an earlier point
	// of the same series with a different value, as the Tachometer reader
	// counts them; both are kept.
	Conflicts     int
	FirstConflict string
}

// TornLastLine is the reason a recognised last line without a newline is
// counted: the log may have been cut while it was written, so its last value
// may be short (12 read as 1). Its values are kept as logged; a file that
// merely lacks its final newline costs one counted line, a cut one is never
// read without a word.
const TornLastLine = "the last line has no newline: it may be cut short, its last value with it"

func (l *Losses) reject(path string, line int64, gen, reason string) {
	if l.Rejected++; l.FirstRejected == "" {
		l.FirstRejected = fmt.Sprintf("%s:%d: %s: %s", path, line, gen, reason)
	}
}

func (l *Losses) add(o Losses) {
	if l.FirstRejected == "" {
		l.FirstRejected = o.FirstRejected
	}
	if l.FirstConflict == "" {
		l.FirstConflict = o.FirstConflict
	}
	l.Rejected += o.Rejected
	l.Conflicts += o.Conflicts
}

// countConflicts counts, in points sorted by time, each point at the time
// of the one before it with another value.
func (l *Losses) countConflicts(path, name string, points []Point) {
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		if a.TimeNS == b.TimeNS && (a.Null != b.Null || a.Value != b.Value) {
			if l.Conflicts++; l.FirstConflict == "" {
				l.FirstConflict = fmt.Sprintf("%s:%d: %s", path, b.Line, name)
			}
		}
	}
}
