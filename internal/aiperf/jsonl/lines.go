package jsonl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes bounds one physical line. Real exports carry multi-MB
// lines (per-chunk latency arrays); anything larger is treated as damage
// rather than read into memory.
const DefaultMaxLineBytes = 64 << 20

// ErrLineTooLong reports a line longer than the reader's bound.
var ErrLineTooLong = errors.New("line too long")

// Lines reads physical lines ("\n"-terminated; the last may lack it). The
// slice returned by Bytes is valid until the next call to Next.
type Lines struct {
	r    *bufio.Reader
	max  int
	line int64
	text []byte
	long []byte
	err  error
	done bool
}

// NewLines reads r with a per-line bound of maxLineBytes (excluding the
// newline); maxLineBytes <= 0 means DefaultMaxLineBytes.
func NewLines(r io.Reader, maxLineBytes int) *Lines {
	if maxLineBytes <= 0 {
		maxLineBytes = DefaultMaxLineBytes
	}
	return &Lines{r: bufio.NewReaderSize(r, min(maxLineBytes+1, 256<<10)), max: maxLineBytes}
}

// Next advances to the next line and reports whether there is one.
func (l *Lines) Next() bool {
	if l.done {
		return false
	}
	l.long = l.long[:0]
	var text []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(l.long)+len(chunk) > l.max {
				return l.fail(fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, l.max))
			}
			l.long = append(l.long, chunk...)
			continue
		}
		if err != nil && err != io.EOF {
			return l.fail(err)
		}
		text = chunk
		if len(l.long) > 0 {
			l.long = append(l.long, chunk...)
			text = l.long
		}
		if err == io.EOF {
			l.done = true
			if len(text) == 0 {
				return false
			}
		}
		break
	}
	if n := len(text); n > 0 && text[n-1] == '\n' {
		text = text[:n-1]
	}
	if len(text) > l.max {
		return l.fail(fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, l.max))
	}
	l.line++
	l.text = text
	return true
}

func (l *Lines) fail(err error) bool {
	l.line++
	l.err, l.done, l.text = err, true, nil
	return false
}

// Bytes returns the current line without its newline.
func (l *Lines) Bytes() []byte { return l.text }

// Line returns the 1-based number of the current line, or of the line that
// failed when Err is not nil.
func (l *Lines) Line() int64 { return l.line }

// Err returns the first read error; io.EOF is not an error.
func (l *Lines) Err() error { return l.err }

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
