package shard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// The dense envelope carries a part's payload in base 32768 inside a
// UTF-16LE script, 15 payload bits per two bytes of file (base64 spends
// 8 bytes of file on 6 bytes of payload). A page parses a script's string
// literal character by character, so the win is in characters: 0.53 per
// payload byte against base64's 1.33, which made a page load its payload
// scripts ~1.7× faster and keeps the files 20 % smaller
// (docs/measurements.md). The file starts with a byte order mark, which
// decides a script's encoding before any Content-Type charset, on file://
// and every host alike.
//
// Each 15 bits of payload, most significant first, is one code unit
// 0x3000 + v (U+3000..U+AFFF: no quote, backslash, line terminator or
// surrogate, so nothing can close the literal). When 7 bits or fewer are
// left, the last unit is 0xB000 + v with 7 bits (U+B000..U+B07F); the
// padding is always under 8 bits, so a reader recovers the byte count from
// the units alone: floor(bits / 8).
const (
	unitBase  = 0x3000
	tailBase  = 0xB000
	unitBits  = 15
	tailBits  = 7
	bom16     = "\xff\xfe"
	unitLimit = unitBase + 1<<unitBits
)

// Units32768 is the number of code units n payload bytes take.
func Units32768(n int) int {
	bits := 8 * n
	units := bits / unitBits
	if bits%unitBits != 0 {
		units++
	}
	return units
}

// AppendBase32768 appends the code units of b, little-endian.
func AppendBase32768(out, b []byte) []byte {
	var acc uint32
	bits := 0
	put := func(u uint32) { out = append(out, byte(u), byte(u>>8)) }
	for _, c := range b {
		acc = acc<<8 | uint32(c)
		bits += 8
		if bits >= unitBits {
			bits -= unitBits
			put(unitBase + acc>>bits&(1<<unitBits-1))
			acc &= 1<<bits - 1
		}
	}
	switch {
	case bits == 0:
	case bits <= tailBits:
		put(tailBase + (acc<<(tailBits-bits)|(1<<(tailBits-bits)-1))&(1<<tailBits-1))
	default:
		put(unitBase + (acc<<(unitBits-bits)|(1<<(unitBits-bits)-1))&(1<<unitBits-1))
	}
	return out
}

// DecodeBase32768 decodes little-endian code units written by
// AppendBase32768, refusing any unit outside the two ranges and a short
// unit anywhere but last.
func DecodeBase32768(units []byte) ([]byte, error) {
	if len(units)%2 != 0 {
		return nil, errors.New("base 32768: odd byte count")
	}
	return AppendDecodeBase32768(make([]byte, 0, len(units)/2*unitBits/8+1), units)
}

// AppendDecodeBase32768 is DecodeBase32768 appending to out.
func AppendDecodeBase32768(out, units []byte) ([]byte, error) {
	if len(units)%2 != 0 {
		return nil, errors.New("base 32768: odd byte count")
	}
	n := len(units) / 2
	i := 0
	// Eight full units are 120 bits, 15 whole bytes: decoded a group at a
	// time, never the last unit (it may be the short one). The units are
	// read four to a word and the group's bytes written as two words into
	// room grown once (one byte past the group's end is overwritten by the
	// next group or cut off), which made the loop about twice as fast as
	// byte-wise loads and appends.
	if groups := (n - 1) / 8; groups > 0 {
		at := len(out)
		out = slices.Grow(out, groups*15+1)[:at+groups*15+1]
		for ; i+8 < n; i += 8 {
			g := units[2*i : 2*i+16]
			a, c := binary.LittleEndian.Uint64(g), binary.LittleEndian.Uint64(g[8:])
			// Below the base a unit wraps to a huge value: one test for
			// the group; the loop below names the unit.
			u0, u1, u2, u3 := a&0xffff-unitBase, a>>16&0xffff-unitBase, a>>32&0xffff-unitBase, a>>48-unitBase
			v0, v1, v2, v3 := c&0xffff-unitBase, c>>16&0xffff-unitBase, c>>32&0xffff-unitBase, c>>48-unitBase
			if (u0|u1|u2|u3|v0|v1|v2|v3)>>unitBits != 0 {
				break
			}
			hi := u0<<45 | u1<<30 | u2<<15 | u3
			lo := v0<<45 | v1<<30 | v2<<15 | v3
			binary.BigEndian.PutUint64(out[at:], hi<<4|lo>>56)
			binary.BigEndian.PutUint64(out[at+8:], lo<<8)
			at += 15
		}
		out = out[:at]
	}
	var acc uint32
	bits := 0
	for ; i < n; i++ {
		u := uint32(units[2*i]) | uint32(units[2*i+1])<<8
		switch {
		case u >= unitBase && u < unitLimit:
			acc, bits = acc<<unitBits|(u-unitBase), bits+unitBits
		case u >= tailBase && u < tailBase+1<<tailBits && i == n-1:
			acc, bits = acc<<tailBits|(u-tailBase), bits+tailBits
		default:
			return nil, fmt.Errorf("base 32768: code unit %d is U+%04X", i, u)
		}
		for bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>bits))
		}
		acc &= 1<<bits - 1
	}
	return out, nil
}

func utf16le(s string) []byte {
	out := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		out = append(out, s[i], 0)
	}
	return out
}

// The dense payload travels in a block comment of a function expression,
// not in a string literal: a page reads it back with the function's
// toString (the exact source text), and a browser skips a comment while
// parsing about twice as fast as it scans a string literal of the same
// characters (1 MiB scripts from file://: 75–93 against 103–125 ms each
// one after another, 30–34 against 51–54 ms twenty at once;
// docs/measurements.md). Every unit is U+3000 or above, so nothing in the
// payload can close the comment.
const (
	denseMiddle = `",function(){/*`
	denseSuffix = "*/});\n"
)

var (
	prefix16 = append([]byte(bom16), utf16le(envelopePrefix)...)
	middle16 = utf16le(denseMiddle)
	suffix16 = utf16le(denseSuffix)
)

// Envelope16 wraps a part's payload in the dense script:
//
//	BOM __dsightShard("<id>",function(){/*<base 32768 of gz>*/});\n   (UTF-16LE)
//
// id must be ID(gz); Envelope16 panics otherwise, as Envelope does.
func Envelope16(id string, gz []byte) []byte {
	if len(id) != idLen || !isLowerHex(id) {
		panic(fmt.Sprintf("shard.Envelope16: id %q is not %d lowercase hex digits", id, idLen))
	}
	out := make([]byte, 0, Envelope16Len(len(gz)))
	out = append(out, prefix16...)
	out = append(out, utf16le(id)...)
	out = append(out, middle16...)
	out = AppendBase32768(out, gz)
	return append(out, suffix16...)
}

// Envelope16Len is the length of the script Envelope16 writes for n bytes.
func Envelope16Len(n int) int {
	return len(prefix16) + 2*idLen + len(middle16) + 2*Units32768(n) + len(suffix16)
}

// PartLen bounds the script of a part of n payload bytes in either
// envelope.
func PartLen(n int) int { return max(EnvelopeLen(n), Envelope16Len(n)) }

// OpenPart opens a part's script in either envelope (the dense one starts
// with its byte order mark) and checks the id against the payload.
func OpenPart(script []byte) (id string, gz []byte, err error) { return AppendOpenPart(nil, script) }

// AppendOpenPart is OpenPart appending the payload to dst, so a reader
// assembles a shard's parts in one buffer; the id is checked against the
// bytes appended.
func AppendOpenPart(dst, script []byte) (id string, out []byte, err error) {
	start := len(dst)
	id, out, dense, err := appendPartUnhashed(dst, script)
	if err != nil || !dense {
		return id, out, err
	}
	if got := ID(out[start:]); got != id {
		return "", nil, fmt.Errorf("open shard envelope: content hash mismatch: id %s does not match the payload's sha256 %s", id, got)
	}
	return id, out, nil
}

// appendPartUnhashed is AppendOpenPart but for the hash of a dense
// envelope's payload (dense false: the base64 envelope, checked whole).
func appendPartUnhashed(dst, script []byte) (id string, out []byte, dense bool, err error) {
	rest, ok := bytes.CutPrefix(script, prefix16)
	if !ok {
		id, gz, err := OpenEnvelope(script)
		if err != nil || dst == nil {
			return id, gz, false, err
		}
		return id, append(dst, gz...), false, nil
	}
	if len(rest) < 2*idLen+len(middle16) {
		return "", nil, false, errors.New("open shard envelope: truncated id")
	}
	ascii := make([]byte, idLen)
	for i := range idLen {
		if rest[2*i+1] != 0 {
			return "", nil, false, errors.New("open shard envelope: id is not ASCII")
		}
		ascii[i] = rest[2*i]
	}
	id = string(ascii)
	if !isLowerHex(id) {
		return "", nil, false, fmt.Errorf("open shard envelope: id %q is not %d lowercase hex digits", id, idLen)
	}
	rest, ok = bytes.CutPrefix(rest[2*idLen:], middle16)
	if !ok {
		return "", nil, false, errors.New("open shard envelope: malformed separator after id")
	}
	payload, ok := bytes.CutSuffix(rest, suffix16)
	if !ok {
		return "", nil, false, errors.New("open shard envelope: missing */});\\n ending")
	}
	if len(payload)/2*unitBits/8 > maxRawBytes {
		return "", nil, false, fmt.Errorf("open shard envelope: payload exceeds %d bytes", maxRawBytes)
	}
	if out, err = AppendDecodeBase32768(dst, payload); err != nil {
		return "", nil, false, fmt.Errorf("open shard envelope: payload: %w", err)
	}
	return id, out, true, nil
}
