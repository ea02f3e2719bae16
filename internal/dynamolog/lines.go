package dynamolog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes bounds one log line. Longer lines are an error rather
// than a silently skipped record.
const DefaultMaxLineBytes = 64 << 20

// LineError is a problem at a line of a log file: "path:LINE: message".
type LineError struct {
	Path string
	Line int64
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ErrLineTooLong marks a line over the configured limit.
var ErrLineTooLong = errors.New("line too long")

// eachLine calls fn with every line (without its '\n') and its number. The
// slice is only valid during the call.
func eachLine(r io.Reader, path string, maxLine int, fn func(line []byte, n int64) error) (lines, bytes int64, err error) {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	inLong := false
	for {
		chunk, rerr := br.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			if len(long)+len(chunk) > maxLine {
				return lines, bytes, &LineError{Path: path, Line: lines + 1, Err: fmt.Errorf("%w: over %d bytes", ErrLineTooLong, maxLine)}
			}
			long = append(long, chunk...)
			inLong = true
			continue
		}
		line := chunk
		if inLong {
			long = append(long, chunk...)
			line = long
		}
		if rerr != nil && rerr != io.EOF {
			return lines, bytes, fmt.Errorf("%s: read: %w", path, rerr)
		}
		if len(line) == 0 {
			return lines, bytes, nil
		}
		if len(line) > maxLine {
			return lines, bytes, &LineError{Path: path, Line: lines + 1, Err: fmt.Errorf("%w: over %d bytes", ErrLineTooLong, maxLine)}
		}
		lines++
		bytes += int64(len(line))
		if line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		}
		if err := fn(line, lines); err != nil {
			return lines, bytes, err
		}
		if inLong {
			long, inLong = long[:0], false
		}
		if rerr == io.EOF {
			return lines, bytes, nil
		}
	}
}
