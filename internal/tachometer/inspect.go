package tachometer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
)

// fileRange is what the first pass over a file found.
type fileRange struct {
	enc      Encoding
	rows     int64
	min, max int64
}

// Inspect validates every file's schema and finds its timestamp range:
// from a Parquet file's footer statistics when they state it
// (statisticsRange), else by decoding only timestamp_ns. It runs once per
// Capture, before
// any point is delivered, so a bad schema fails the read early. A file an
// older writer left without timestamp_ns is dropped from Files with a
// warning saying why: its samples cannot be aligned, and the rest of the
// capture still can. Call it before registering Files as sources, so a
// dropped file is reported as unread.
func (c *Capture) Inspect() error {
	if c.ranges != nil {
		return nil
	}
	ranges := make([]fileRange, 0, len(c.Files))
	kept := c.Files[:0]
	for _, f := range c.Files {
		fr, err := inspectFile(c.Open, f.Path)
		if errors.Is(err, errUnaligned) {
			name := f.Path
			if rel, err := filepath.Rel(filepath.Dir(c.Root), f.Path); err == nil {
				name = filepath.ToSlash(rel)
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("Tachometer capture file %s was not read: %v", name, errUnaligned))
			continue
		}
		if err != nil {
			return err
		}
		kept = append(kept, f)
		ranges = append(ranges, fr)
	}
	c.Files, c.ranges = kept, ranges
	return nil
}

func inspectFile(open OpenFunc, path string) (fr fileRange, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: corrupt capture file: %v", path, p)
		}
	}()
	src, enc, err := openSourceWith(open, path)
	if err != nil {
		return fr, fmt.Errorf("%s: %w", path, err)
	}
	defer src.close()
	fr = fileRange{enc: enc, min: math.MaxInt64, max: math.MinInt64}
	if _, err := checkSchema(src.schema()); err != nil {
		if errors.Is(err, errUnaligned) {
			return fr, err
		}
		return fr, fmt.Errorf("%s: %w", path, err)
	}
	if err := src.project(layout{timesOnly: true}); err != nil {
		return fr, fmt.Errorf("%s: %w", path, err)
	}
	if ps, ok := src.(*parquetSource); ok {
		if stated, ok := ps.statisticsRange(); ok {
			stated.enc = enc
			return stated, nil
		}
	}
	var b batch
	for {
		err := src.next(&b)
		if errors.Is(err, io.EOF) {
			return fr, nil
		}
		if err != nil {
			return fr, fmt.Errorf("%s: after row %d: %w", path, fr.rows, err)
		}
		if b.nullTS >= 0 {
			return fr, fmt.Errorf("%s: row %d: null timestamp_ns", path, fr.rows+int64(b.nullTS))
		}
		for _, t := range b.ts[:b.n] {
			fr.min, fr.max = min(fr.min, t), max(fr.max, t)
		}
		fr.rows += int64(b.n)
	}
}

// TimeRange returns the earliest and latest timestamp_ns over every row of
// every capture file, for runs whose time range comes from the sources
// themselves. ok is false when the capture has no rows.
func (c *Capture) TimeRange() (minNS, maxNS int64, ok bool, err error) {
	if err := c.Inspect(); err != nil {
		return 0, 0, false, err
	}
	minNS, maxNS = math.MaxInt64, math.MinInt64
	for _, r := range c.ranges {
		if r.rows > 0 {
			minNS, maxNS, ok = min(minNS, r.min), max(maxNS, r.max), true
		}
	}
	if !ok {
		return 0, 0, false, nil
	}
	return minNS, maxNS, true, nil
}

// horizon is the earliest timestamp at which a file can overlap the files
// read before it; duplicate checks keep every pair from there on. It is
// MaxInt64 when files follow one another in time.
func (c *Capture) horizon() int64 {
	h := int64(math.MaxInt64)
	seen := false
	var latest int64
	for _, r := range c.ranges {
		if r.rows == 0 {
			continue
		}
		if seen && r.min <= latest {
			h = min(h, r.min)
		}
		if !seen || r.max > latest {
			latest = r.max
		}
		seen = true
	}
	return h
}
