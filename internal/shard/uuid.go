package shard

import (
	"encoding/hex"
	"unsafe"
)

// uuidBytes is a UUID's binary size; its canonical text is 36 characters.
const uuidBytes = 16

// isUUID reports whether s is a canonical lowercase UUID
// (8-4-4-4-12 hex digits), the only form stored in 16 bytes: any other
// spelling must come back exactly as written, so it stays text.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}

func allUUIDs(vals []string) bool {
	if len(vals) == 0 {
		return false
	}
	for _, v := range vals {
		if !isUUID(v) {
			return false
		}
	}
	return true
}

func appendUUID(p []byte, s string) []byte {
	var b [uuidBytes]byte
	hex.Decode(b[0:4], []byte(s[0:8]))
	hex.Decode(b[4:6], []byte(s[9:13]))
	hex.Decode(b[6:8], []byte(s[14:18]))
	hex.Decode(b[8:10], []byte(s[19:23]))
	hex.Decode(b[10:16], []byte(s[24:36]))
	return append(p, b[:]...)
}

// formatUUIDs turns n packed binary UUIDs into their canonical text, backed
// by one string so decoding a million ids costs one allocation.
func formatUUIDs(packed []byte, n int) []string {
	text := make([]byte, 36*n)
	for k := range n {
		formatUUID(text[k*36:k*36+36], packed[k*uuidBytes:k*uuidBytes+uuidBytes])
	}
	if n == 0 {
		return []string{}
	}
	// text is written only above: the strings can share its bytes rather
	// than a copy (3.6 MB for 100,000 ids, made on the page's one thread).
	all := unsafe.String(&text[0], len(text))
	out := make([]string, n)
	for k := range out {
		out[k] = all[k*36 : k*36+36]
	}
	return out
}
