package synth

import (
	"strconv"
	"unicode/utf8"
)

// Minimal JSON appenders. Writers build each line in a reused buffer instead
// of going through encoding/json: it is several times faster for lines that
// are mostly float arrays, and it leaves <, > and & unescaped, as Python
// writers (and so real exports) do.

// appendString appends s as a JSON string, escaping only what JSON requires.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				b = append(b, `\ufffd`...) // invalid UTF-8 byte
			}
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendKey appends `"key":`; keys are constants that need no escaping.
func appendKey(b []byte, key string) []byte {
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendFloat appends v the way Python's repr does for the magnitudes these
// files hold: shortest round-trip digits, and a ".0" on integral values.
func appendFloat(b []byte, v float64) []byte {
	n := len(b)
	b = strconv.AppendFloat(b, v, 'f', -1, 64)
	for _, c := range b[n:] {
		if c == '.' {
			return b
		}
	}
	return append(b, '.', '0')
}

// msFromNS converts a nanosecond duration to milliseconds as ns * 1e-6,
// which reproduces the binary rounding artifacts of real AIPerf exports
// (136.59787799999998, 138.46932999999999): parsers must cope with 17
// significant digits.
func msFromNS(ns int64) float64 {
	return float64(ns) * 1e-6
}
