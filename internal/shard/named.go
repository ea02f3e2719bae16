package shard

import (
	"encoding/hex"
	"fmt"
)

// A Part is a run of a shard's payload named, as the report's manifest
// names it, by the lowercase hex SHA-256 of its bytes.
type Part struct {
	ID    string
	Path  string // the file holding it, for the error
	Bytes int
}

// DecodeNamed decodes raw, the bytes of parts one after another, once
// each part's SHA-256 equals its name. The checksum in the shard's trailer
// covers the same bytes the hashes have just checked, so it is not
// computed again: on the page, an evidence shard (a sixteenth of a MiB)
// asked for by an answer is hashed by the engine within that answer, and
// the checksum was a second pass over it (docs/measurements.md, issue 17). Every other
// check of Decode is made. A part whose bytes are not those of its name
// fails with the page's words for it ("content hash mismatch"), and
// nothing is decoded.
func DecodeNamed(raw []byte, parts []Part) (*Shard, error) {
	at := 0
	for _, p := range parts {
		if p.Bytes < 0 || p.Bytes > len(raw)-at {
			return nil, fmt.Errorf("%w: %s: %d bytes past the shard's %d", ErrCorrupt, p.Path, at+p.Bytes, len(raw))
		}
		sum := Sum256(raw[at : at+p.Bytes])
		if got := hex.EncodeToString(sum[:]); got != p.ID {
			return nil, fmt.Errorf("content hash mismatch: %s holds a payload whose SHA-256 is %s, not %s; republish the report's detail/ directory", p.Path, got, p.ID)
		}
		at += p.Bytes
	}
	if at != len(raw) || len(parts) == 0 {
		return nil, fmt.Errorf("%w: the parts name %d bytes of the shard's %d", ErrCorrupt, at, len(raw))
	}
	if err := checkFrameSum(raw, false); err != nil {
		return nil, err
	}
	d := decoder{r: reader{b: raw[:len(raw)-trailerBytes], off: headerFixedBytes}, budget: DecodeBudget(len(raw))}
	return d.shard()
}
