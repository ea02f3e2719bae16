package shard

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
)

// The envelope is a classic script, the only way a page opened from file://
// can load a file: fetch, XHR and module scripts are blocked there. The page
// defines __dsightShard as a registry keyed by id, so several shards may
// load at once. Inside the quotes are only hex digits and the standard
// base64 alphabet, so no input string can close the literal or the script.
const (
	envelopePrefix = `__dsightShard("`
	envelopeMiddle = `","`
	envelopeSuffix = "\");\n"
	idLen          = 2 * 32 // hex SHA-256
)

// ID names a compressed shard by its content: lowercase hex SHA-256 of gz.
func ID(gz []byte) string {
	sum := Sum256(gz)
	return hex.EncodeToString(sum[:])
}

// Envelope wraps a compressed shard in its script:
//
//	__dsightShard("<id>","<standard base64 of gz>");\n
//
// id must be ID(gz). Envelope panics if id is not 64 lowercase hex digits,
// because anything else could break out of the script's string literal.
func Envelope(id string, gz []byte) []byte {
	if len(id) != idLen || !isLowerHex(id) {
		panic(fmt.Sprintf("shard.Envelope: id %q is not %d lowercase hex digits", id, idLen))
	}
	n := len(envelopePrefix) + len(id) + len(envelopeMiddle) + base64.StdEncoding.EncodedLen(len(gz)) + len(envelopeSuffix)
	out := make([]byte, 0, n)
	out = append(out, envelopePrefix...)
	out = append(out, id...)
	out = append(out, envelopeMiddle...)
	out = base64.StdEncoding.AppendEncode(out, gz)
	return append(out, envelopeSuffix...)
}

// EnvelopeLen is the length of the script Envelope writes for a payload of
// n bytes, so a reader can bound a read by the size a manifest declares.
func EnvelopeLen(n int) int {
	return len(envelopePrefix) + idLen + len(envelopeMiddle) + base64.StdEncoding.EncodedLen(n) + len(envelopeSuffix)
}

// OpenEnvelope parses a script written by Envelope and checks that the id is
// the SHA-256 of the payload, so a renamed, swapped or damaged file is caught.
func OpenEnvelope(script []byte) (id string, gz []byte, err error) {
	rest, ok := bytes.CutPrefix(script, []byte(envelopePrefix))
	if !ok {
		return "", nil, errors.New("open shard envelope: missing __dsightShard(\" prefix")
	}
	if len(rest) < idLen+len(envelopeMiddle) {
		return "", nil, errors.New("open shard envelope: truncated id")
	}
	id = string(rest[:idLen])
	if !isLowerHex(id) {
		return "", nil, fmt.Errorf("open shard envelope: id %q is not %d lowercase hex digits", id, idLen)
	}
	rest, ok = bytes.CutPrefix(rest[idLen:], []byte(envelopeMiddle))
	if !ok {
		return "", nil, errors.New("open shard envelope: malformed separator after id")
	}
	payload, ok := bytes.CutSuffix(rest, []byte(envelopeSuffix))
	if !ok {
		return "", nil, errors.New("open shard envelope: missing \");\\n ending")
	}
	if base64.StdEncoding.DecodedLen(len(payload)) > maxRawBytes {
		return "", nil, fmt.Errorf("open shard envelope: payload exceeds %d bytes", maxRawBytes)
	}
	// The decoder skips CR and LF; refuse them so each shard has one envelope.
	if i := indexNonBase64(payload); i >= 0 {
		return "", nil, fmt.Errorf("open shard envelope: payload byte %d is not standard base64", i)
	}
	gz, err = base64.StdEncoding.Strict().AppendDecode(nil, payload)
	if err != nil {
		return "", nil, fmt.Errorf("open shard envelope: payload: %w", err)
	}
	if got := ID(gz); got != id {
		return "", nil, fmt.Errorf("open shard envelope: content hash mismatch: id %s does not match the payload's sha256 %s", id, got)
	}
	return id, gz, nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// base64Chars marks the bytes of standard base64, padding included.
var base64Chars = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isBase64Char(rune(c))
	}
	return t
}()

// indexNonBase64 is the index of the first byte outside standard base64,
// or -1. A table lookup per byte: every CLI question checks the whole core
// payload (megabytes), and a rune-decoding scan was half of its start-up.
func indexNonBase64(b []byte) int {
	for i, c := range b {
		if !base64Chars[c] {
			return i
		}
	}
	return -1
}

func isBase64Char(r rune) bool {
	return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '='
}
