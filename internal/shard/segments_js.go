//go:build js

package shard

// CompressSegmented fails in the page's engine, as Compress does: it
// writes no shards (gzipwriter_js.go).
func CompressSegmented([]byte) ([]byte, error) { return nil, errNoWriter }

// CompressSummary fails in the page's engine, as Compress does.
func CompressSummary([]byte) ([]byte, error) { return nil, errNoWriter }
