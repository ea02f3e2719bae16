package synth

import "time"

// Timestamp formatting for log lines. Lines of one file are written in time
// order, so each formatter keeps the text of the last second it formatted
// and only appends the fraction for later lines in the same second.

// clock formats epoch nanoseconds as wall time in one location.
type clock struct {
	loc    *time.Location
	layout string // seconds resolution, Go layout
	sec    int64
	text   []byte
}

func newClock(loc *time.Location, layout string) *clock {
	return &clock{loc: loc, layout: layout, sec: -1 << 62}
}

// appendSecond appends the wall time of ns to the second.
func (c *clock) appendSecond(b []byte, ns int64) []byte {
	sec := floorDiv(ns, 1e9)
	if sec != c.sec {
		c.sec = sec
		c.text = time.Unix(sec, 0).In(c.loc).AppendFormat(c.text[:0], c.layout)
	}
	return append(b, c.text...)
}

// appendFrac appends sep and the first digits of ns's fraction of a second,
// truncated as Python's %(msecs)03d and Rust's microsecond formatting do.
func appendFrac(b []byte, ns int64, sep byte, digits int) []byte {
	frac := ns - floorDiv(ns, 1e9)*1e9
	var d [9]byte
	for i := 8; i >= 0; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	return append(append(b, sep), d[:digits]...)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// rfc3339Micro formats UTC times as Dynamo's loggers do:
// 2025-09-02T16:38:06.656503Z.
type rfc3339Micro struct{ c *clock }

func newRFC3339Micro() rfc3339Micro {
	return rfc3339Micro{newClock(time.UTC, "2006-01-02T15:04:05")}
}

func (f rfc3339Micro) append(b []byte, ns int64) []byte {
	b = f.c.appendSecond(b, ns)
	b = appendFrac(b, ns, '.', 6)
	return append(b, 'Z')
}

// localStamp formats naive worker-local times: "2026-09-17 10:58:33" with
// an optional millisecond fraction after sep ('.' for SGLang, ',' for
// Python's default asctime).
type localStamp struct {
	c   *clock
	sep byte // 0: whole seconds
}

func newLocalStamp(loc *time.Location, sep byte) localStamp {
	return localStamp{c: newClock(loc, "2006-01-02 15:04:05"), sep: sep}
}

func (f localStamp) append(b []byte, ns int64) []byte {
	b = f.c.appendSecond(b, ns)
	if f.sep != 0 {
		b = appendFrac(b, ns, f.sep, 3)
	}
	return b
}
