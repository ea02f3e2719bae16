package shard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// FrameInflater inflates the gzip frames of one framed shard with one
// gzip reader: a reader's tables cost ~40 KB, and a core has a frame per
// table. Not safe for concurrent use.
type FrameInflater struct {
	zr *gunzipper
	in bytes.Reader
}

// Inflate inflates one gzip member holding exactly size bytes (a frame's
// declared raw length, at most the largest raw shard), refusing a longer or
// shorter output and any bytes after the member.
func (f *FrameInflater) Inflate(gz []byte, size int) ([]byte, error) {
	if size < 0 || size > maxRawBytes {
		return nil, fmt.Errorf("decompress shard: %d bytes declared, the limit is %d", size, maxRawBytes)
	}
	f.in.Reset(gz)
	if f.zr == nil {
		f.zr = &gunzipper{}
	}
	if err := f.zr.Reset(&f.in); err != nil {
		return nil, fmt.Errorf("decompress shard: %w", err)
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(f.zr, out); err != nil {
		return nil, fmt.Errorf("decompress shard: %w (%d bytes declared)", err, size)
	}
	var one [1]byte
	if n, err := f.zr.Read(one[:]); n != 0 || !errors.Is(err, io.EOF) {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("decompress shard: output exceeds the %d bytes declared", size)
		}
		return nil, fmt.Errorf("decompress shard: %w", err)
	}
	if f.in.Len() != 0 {
		return nil, errors.New("decompress shard: trailing bytes after the gzip member")
	}
	return out, nil
}
