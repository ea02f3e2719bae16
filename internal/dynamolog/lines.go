package dynamolog

import (
	"errors"
	"fmt"
	"io"

	"github.com/dsight/dsight/internal/lineread"
)

// DefaultMaxLineBytes bounds one log line. Longer lines are an error rather
// than a silently skipped record.
const DefaultMaxLineBytes = 64 << 20

// LineError is a problem at a line of a log file: "path:LINE: message".
type LineError = lineread.LineError

// ErrLineTooLong marks a line over the configured limit.
var ErrLineTooLong = lineread.ErrTooLong

// eachLine calls fn with every line (without its '\n') and its number. The
// slice is only valid during the call.
func eachLine(r io.Reader, path string, maxLine int, fn func(line []byte, n int64) error) (lines, bytes int64, err error) {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	lr := lineread.New(r, maxLine)
	for lr.Next() {
		lines, bytes = lr.Line(), lr.Offset()
		if err := fn(lr.Bytes(), lines); err != nil {
			return lines, bytes, err
		}
	}
	switch err := lr.Err(); {
	case errors.Is(err, ErrLineTooLong):
		return lines, bytes, &LineError{Path: path, Line: lr.Line(), Err: err}
	case err != nil:
		return lines, bytes, fmt.Errorf("%s: read: %w", path, err)
	}
	return lines, bytes, nil
}
