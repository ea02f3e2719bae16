package catalog

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
)

// A request's server detail (its spans, bindings and derived lifecycle as
// JSON) is stored deflated: the page keeps the core shard decoded in
// memory, and the JSON of a traced request is tens of KB that readers need
// one request at a time.

func deflate(b []byte) string {
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.DefaultCompression)
	w.Write(b)
	w.Close()
	return out.String()
}

// maxDetailBytes bounds one request's inflated detail.
const maxDetailBytes = 64 << 20

func inflate(s string) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader([]byte(s)))
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxDetailBytes+1))
	if err != nil {
		return nil, fmt.Errorf("stored server detail: %w", err)
	}
	if len(b) > maxDetailBytes {
		return nil, fmt.Errorf("stored server detail exceeds %d bytes", maxDetailBytes)
	}
	return b, nil
}

// DetailJSON returns row k's server detail as JSON.
func (s *Server) DetailJSON(k int) ([]byte, error) { return inflate(s.Detail[k]) }
