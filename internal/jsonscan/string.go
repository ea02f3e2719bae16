package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Str consumes a string and returns it unescaped. Invalid UTF-8 is an error:
// a kept string must survive re-encoding unchanged. So is an unpaired
// surrogate escape (\ud800) with StrictSurrogates; otherwise it becomes
// U+FFFD, as in encoding/json.
func (s *Scanner) Str() (string, error) {
	start := s.pos
	raw, escaped, ascii, err := s.scanString()
	if err != nil {
		return "", err
	}
	if escaped {
		var lone bool
		raw, lone = unescape(s.scratch[:0], raw)
		s.scratch = raw[:0]
		if lone && s.StrictSurrogates {
			return "", &SyntaxError{Offset: start, Msg: "unpaired UTF-16 surrogate escape in string"}
		}
		if lone {
			s.Replaced++
		}
		ascii = false // a \u escape may decode to any rune
	}
	if !ascii && !utf8.Valid(raw) {
		return "", s.fail(errUTF8, 0, "")
	}
	return string(raw), nil
}

// StrBytes consumes a string and returns its decoded bytes, with invalid
// UTF-8 replaced by U+FFFD as encoding/json does. The result aliases the
// record or the scanner's scratch buffer: copy it before the next call.
func (s *Scanner) StrBytes() ([]byte, error) {
	raw, escaped, ascii, err := s.scanString()
	if err != nil {
		return nil, err
	}
	if escaped {
		var lone bool
		s.scratch, lone = unescape(s.scratch[:0], raw)
		raw = s.scratch
		if lone {
			s.Replaced++
		}
		ascii = false // a \u escape may decode to any rune
	}
	if !ascii && !utf8.Valid(raw) {
		s.fixed = replaceInvalid(s.fixed[:0], raw)
		raw = s.fixed
		s.Replaced++
	}
	return raw, nil
}

// StrPlain reads the string right at the position when it is plain,
// ASCII with no escapes and no control characters, and returns its bytes
// (aliasing the record) and true: what StrBytes would return, for less
// work. Anything else returns false and leaves the position alone for
// StrBytes and its errors.
func (s *Scanner) StrPlain() ([]byte, bool) {
	d, i := s.data, s.pos
	if i >= len(d) || d[i] != '"' {
		return nil, false
	}
	i++
	start := i
	i = plainRun(d, i)
	if i >= len(d) || d[i] != '"' {
		return nil, false
	}
	s.pos = i + 1
	return d[start:i], true
}

// plainRun returns the index of the first byte of d from i on that is not
// ASCII (0x20 to 0x7f) other than a quote or a backslash, or len(d).
func plainRun(d []byte, i int) int {
	for i+8 <= len(d) {
		w := binary.LittleEndian.Uint64(d[i:])
		if m := special(w) | w&highBits; m != 0 {
			// The lowest marked byte is the first such byte: a false
			// mark can only sit above a true one.
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(d) && keyByte[d[i]] {
		i++
	}
	return i
}

// replaceInvalid appends raw to dst with each byte of an invalid sequence
// replaced by U+FFFD.
func replaceInvalid(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		if raw[i] < utf8.RuneSelf {
			dst = append(dst, raw[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		dst = utf8.AppendRune(dst, r) // RuneError for invalid bytes
		i += size
	}
	return dst
}

// stringBytes consumes a string and returns its raw content between the
// quotes, validating escapes and rejecting raw control characters.
func (s *Scanner) stringBytes() (raw []byte, escaped bool, err error) {
	raw, escaped, _, err = s.scanString()
	return raw, escaped, err
}

// scanString is stringBytes that also reports whether the raw content is
// all ASCII, which spares the callers that keep the string a UTF-8
// validation: ids, names and attribute keys almost always are.
func (s *Scanner) scanString() (raw []byte, escaped, ascii bool, err error) {
	c, err := s.PeekByte()
	if err != nil {
		return nil, false, false, err
	}
	if c != '"' {
		return nil, false, false, s.fail(errWant, c, "string")
	}
	d := s.data
	start := s.pos + 1
	var seen uint64 // the bytes passed over, OR-ed: a high bit is non-ASCII
	for i := start; i < len(d); i++ {
		// Eight bytes at a time over ordinary ones: ids and UUIDs are
		// tens of bytes with nothing to look at.
		for i+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[i:])
			if special(w) != 0 {
				break
			}
			seen |= w
			i += 8
		}
		for i < len(d) && plain[d[i]] {
			seen |= uint64(d[i])
			i++
		}
		if i >= len(d) {
			break
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return d[start:i], escaped, seen&highBits == 0, nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(d) {
				s.pos = i
				return nil, false, false, s.eofString()
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d) {
					s.pos = len(d)
					return nil, false, false, s.eofString()
				}
				if !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
					s.pos = i + 1
					return nil, false, false, s.fail(errUnicode, 0, "")
				}
				i += 4
			default:
				s.pos = i
				return nil, false, false, s.fail(errEscape, d[i], "")
			}
		default: // c < 0x20
			s.pos = i
			return nil, false, false, s.fail(errControl, c, "")
		}
	}
	s.pos = len(d)
	return nil, false, false, s.eofString()
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// special is non-zero when one of the eight bytes of w is a quote, a
// backslash or a control character (below 0x20): exactly the bytes plain
// does not mark. Each test is exact about whether any byte matches (a
// borrow can only spread upwards from a byte that does).
func special(w uint64) uint64 {
	q := w ^ ('"' * lowBits)
	b := w ^ ('\\' * lowBits)
	return ((q-lowBits)&^q | (b-lowBits)&^b | (w-0x20*lowBits)&^w) & highBits
}

// plain marks bytes that need no attention inside a string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexValue(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unescape appends the decoded form of raw (already validated by
// stringBytes) to dst. Unpaired surrogates become U+FFFD, as in
// encoding/json; lone says whether there was one.
func unescape(dst, raw []byte) (out []byte, lone bool) {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hexValue(raw[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					r2 = utf16.DecodeRune(r, hexValue(raw[i+3:i+7]))
				}
				if r2 != utf8.RuneError {
					i += 6
					r = r2
				} else {
					r, lone = utf8.RuneError, true
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, raw[i])
		}
	}
	return dst, lone
}
