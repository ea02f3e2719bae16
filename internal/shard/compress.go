package shard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// compressionLevel is fixed so that identical shards give identical gzip
// bytes, and with them identical content-hash names. Level 6 was measured
// against 5, 7 and 9 on a 1M-row shard (docs/format/shard.md): 6-19x faster
// than 7 and 9 for output about 10% larger, and the build is meant to be fast.
const compressionLevel = 6

// summaryLevel is the level metric summaries are compressed at
// (CompressSummary), fixed for the same reason. A capture's summaries hold
// every sample it read (824 MB raw for 100M samples), and deflating them at
// level 6 was the largest cost of its build: level 3 takes 60 % of its
// CPU for 5.6 % more bytes (docs/format/shard.md, "Compression").
const summaryLevel = 3

// CompressTo returns the gzip writer Compress uses, writing to w: a caller
// that streams the compressed bytes (the report writer, into its parts)
// gets Compress's bytes when it also writes the shard in a single Write.
func CompressTo(w io.Writer) (*gzipWriter, error) { return newGzipWriter(w, compressionLevel) }

// Compress gzips a raw shard deterministically: a fixed level, one member,
// no file name, no comment, modification time zero. The page inflates it with
// the browser's DecompressionStream('gzip').
func Compress(raw []byte) ([]byte, error) { return shardWriters.compress(raw) }

// compress gzips raw at the pool's level, as Compress describes.
func (wp *writerPool) compress(raw []byte) ([]byte, error) {
	pw, _ := wp.pool.Get().(*pooledWriter)
	if pw == nil {
		pw = &pooledWriter{}
		var err error
		if pw.zw, err = newGzipWriter(&pw.out, wp.level); err != nil {
			return nil, fmt.Errorf("compress shard: %w", err)
		}
	} else {
		pw.out.Reset()
		pw.zw.Reset(&pw.out)
	}
	defer wp.pool.Put(pw)
	out, zw := &pw.out, pw.zw
	out.Grow(len(raw)/2 + 64)
	// A single Write: the compressed bytes may depend on how the input is
	// split across calls, so always split it the same way.
	if _, err := zw.Write(raw); err != nil {
		return nil, fmt.Errorf("compress shard: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress shard: %w", err)
	}
	// Callers keep compressed shards (a build holds thousands of metric
	// summaries); return exactly the compressed bytes, not the buffer sized
	// for half the input.
	return bytes.Clone(out.Bytes()), nil
}

// A writerPool pools gzip writers of one level with their output buffers:
// each writer holds about 1 MB of encoder tables, and a capture with 100k
// series compresses 100k summaries (a fresh writer per call allocated
// ~100 GB over such a build; a fresh buffer per call, half the input
// again). A reset writer writes the same bytes as a new one.
type writerPool struct {
	level int
	pool  sync.Pool // of *pooledWriter
}

var (
	shardWriters   = &writerPool{level: compressionLevel}
	summaryWriters = &writerPool{level: summaryLevel}
)

type pooledWriter struct {
	zw  *gzipWriter
	out bytes.Buffer
}

// Decompress inflates one gzip member, refusing output beyond the largest raw
// shard and any bytes after the member. It serves native readers and tests;
// the page uses the browser's own inflater instead.
func Decompress(gz []byte) ([]byte, error) { return decompress(gz, maxRawBytes) }

func decompress(gz []byte, limit int64) ([]byte, error) {
	in := bytes.NewReader(gz)
	zr, err := newGunzipper(in)
	if err != nil {
		return nil, fmt.Errorf("decompress shard: %w", err)
	}
	// The gzip trailer records the decoded size (mod 2^32): a capacity
	// hint, bounded by limit, that spares io.ReadAll's doublings.
	hint := int64(binary.LittleEndian.Uint32(gz[len(gz)-4:]))
	out := bytes.NewBuffer(make([]byte, 0, min(hint, limit)+bytes.MinRead))
	if _, err := out.ReadFrom(io.LimitReader(zr, limit+1)); err != nil {
		return nil, fmt.Errorf("decompress shard: %w", err)
	}
	raw := out.Bytes()
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("decompress shard: output exceeds %d bytes", limit)
	}
	if err := zr.Close(); err != nil {
		return nil, fmt.Errorf("decompress shard: %w", err)
	}
	if in.Len() != 0 {
		return nil, errors.New("decompress shard: trailing bytes after the gzip member")
	}
	return raw, nil
}
