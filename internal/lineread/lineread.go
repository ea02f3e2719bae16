// Package lineread is the bounded line reader every line-oriented parser
// uses, the one error type that names a line of an input file, and the one
// way input files are opened (regular files only).
//
// Lines are physical: split on '\n' only, so a carriage return inside a
// progress line never shifts line numbers (a CRLF line keeps its '\r', which
// parsers trim or treat as space as their formats need), and the last line
// may lack its newline. A line longer than the reader's bound is damage, not
// data: it is an error, or (SkipLong) counted and skipped without being held
// in memory.
//
// It imports only the standard library.
package lineread

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxBytes bounds one line when a reader is given no bound. Real
// exports carry multi-MB lines (per-chunk latency arrays); anything larger
// is treated as damage rather than read into memory.
const DefaultMaxBytes = 64 << 20

// ErrTooLong reports a line longer than the reader's bound.
var ErrTooLong = errors.New("line too long")

// LineError is a problem at a line of an input file: "path:LINE: message".
type LineError struct {
	Path string
	Line int64
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Reader reads physical lines. The slices returned by Bytes and Raw are
// valid until the next call to Next.
type Reader struct {
	r        *bufio.Reader
	max      int
	skipLong bool
	line     int64
	offset   int64
	raw      []byte // the current line with its '\n', if any
	long     []byte // a line longer than the read buffer
	tooLong  bool
	err      error
	done     bool
}

// New reads r with a bound of maxBytes per line, not counting the newline;
// maxBytes <= 0 means DefaultMaxBytes.
func New(r io.Reader, maxBytes int) *Reader {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Reader{r: bufio.NewReaderSize(r, min(maxBytes+1, 256<<10)), max: maxBytes}
}

// SkipLong makes a line over the bound a line of its own (Long reports it,
// Bytes is empty) instead of an error; at most the bound is ever buffered.
func (l *Reader) SkipLong() { l.skipLong = true }

// Next advances to the next line and reports whether there is one.
func (l *Reader) Next() bool {
	if l.done {
		return false
	}
	l.long, l.tooLong, l.raw = l.long[:0], false, nil
	inLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			l.offset += int64(len(chunk))
			if !l.tooLong && len(l.long)+len(chunk) > l.max {
				if !l.skipLong {
					return l.fail(fmt.Errorf("%w: over %d bytes", ErrTooLong, l.max))
				}
				l.tooLong = true
			}
			if !l.tooLong {
				l.long = append(l.long, chunk...)
			}
			inLong = true
			continue
		}
		if err != nil && err != io.EOF {
			return l.fail(err)
		}
		l.offset += int64(len(chunk))
		raw := chunk
		if inLong && !l.tooLong {
			l.long = append(l.long, chunk...)
			raw = l.long
		}
		if err == io.EOF {
			l.done = true
			if len(raw) == 0 && !inLong {
				return false
			}
		}
		n := len(raw)
		if n > 0 && raw[n-1] == '\n' {
			n--
		}
		if !l.tooLong && n > l.max {
			if !l.skipLong {
				return l.fail(fmt.Errorf("%w: over %d bytes", ErrTooLong, l.max))
			}
			l.tooLong = true
		}
		if l.tooLong {
			raw = nil
		}
		l.line++
		l.raw = raw
		return true
	}
}

func (l *Reader) fail(err error) bool {
	l.line++
	l.err, l.done, l.raw = err, true, nil
	return false
}

// Bytes returns the current line without its newline.
func (l *Reader) Bytes() []byte {
	if n := len(l.raw); n > 0 && l.raw[n-1] == '\n' {
		return l.raw[:n-1]
	}
	return l.raw
}

// Raw returns the current line with its newline, if it has one.
func (l *Reader) Raw() []byte { return l.raw }

// Terminated reports whether the current line ended with a newline; only
// the last line of a file may not.
func (l *Reader) Terminated() bool { n := len(l.raw); return n > 0 && l.raw[n-1] == '\n' }

// Long reports that the current line was over the bound and skipped.
func (l *Reader) Long() bool { return l.tooLong }

// Line returns the 1-based number of the current line, or of the line that
// failed when Err is not nil.
func (l *Reader) Line() int64 { return l.line }

// Offset is the number of bytes read through the end of the current line.
func (l *Reader) Offset() int64 { return l.offset }

// Err returns the first read error or ErrTooLong; io.EOF is not an error.
func (l *Reader) Err() error { return l.err }

// Rest is the input after the current line, for a reader that finds the
// file is not line-oriented after all.
func (l *Reader) Rest() io.Reader { return l.r }

// Blank reports whether b holds only whitespace, which line-oriented
// readers skip (Python's str.strip set for ASCII).
func Blank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return false
		}
	}
	return true
}
