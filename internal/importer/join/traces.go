package join

import (
	"encoding/hex"
	"strings"
)

// traceOwners maps a trace to the one request whose bridged ids it
// records, or to -1 when it records ids of several requests. A trace id
// of 32 lowercase hex digits (OTLP's) is keyed by its 16 bytes, any other
// by a copy of its text: a run of a million requests links a million
// traces, held from the link pass to the end of the join.
type traceOwners struct {
	bytes map[[16]byte]int32
	text  map[string]int32
}

func newTraceOwners() traceOwners {
	return traceOwners{bytes: map[[16]byte]int32{}, text: map[string]int32{}}
}

// owner is the request trace id is linked to (-1 for several).
func (t *traceOwners) owner(id string) (int, bool) {
	var i int32
	var ok bool
	if k, isHex := traceKey(id); isHex {
		i, ok = t.bytes[k]
	} else {
		i, ok = t.text[id]
	}
	return int(i), ok
}

// link links trace id to request i: the first request linked owns it, a
// second one makes it owned by several.
func (t *traceOwners) link(id string, i int) {
	if k, ok := traceKey(id); ok {
		t.linkKey(k, i)
	} else if linkOwner(t.text, id, i) {
		// Cloned: the span may live in a buffer the caller reuses or
		// drops (a spill bucket read back), which the key would otherwise
		// keep whole for the rest of the join.
		delete(t.text, id)
		t.text[strings.Clone(id)] = int32(i)
	}
}

// linkKey is link for the trace id of 16 bytes k.
func (t *traceOwners) linkKey(k [16]byte, i int) { linkOwner(t.bytes, k, i) }

// linkOwner links key k of m to request i, and reports whether k is new.
func linkOwner[K comparable](m map[K]int32, k K, i int) (added bool) {
	switch owner, seen := m[k]; {
	case !seen:
		m[k] = int32(i)
		return true
	case int(owner) != i:
		m[k] = -1
	}
	return false
}

// traceKey reads 32 lowercase hex digits, the text hex.EncodeToString
// gives back.
func traceKey(id string) (k [16]byte, ok bool) {
	if len(id) != 32 {
		return k, false
	}
	for i := 0; i < 32; i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return k, false
		}
	}
	_, err := hex.Decode(k[:], []byte(id))
	return k, err == nil
}
