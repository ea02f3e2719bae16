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

// appendMSFromNS appends msFromNS(ns) exactly as appendFloat would, faster.
// When ns * 1e-6 is the double nearest to the decimal ns/10^6 (most of the
// time) and that decimal has at most 15 significant digits, its shortest
// round-trip form is that decimal itself, which integer formatting writes
// directly; the other cases keep their artifacts through strconv.
func appendMSFromNS(b []byte, ns int64) []byte {
	v := msFromNS(ns)
	if ns < 0 || ns >= 1e15 || v != float64(ns)/1e6 {
		return appendFloat(b, v)
	}
	b = strconv.AppendInt(b, ns/1e6, 10)
	frac := ns % 1e6
	if frac == 0 {
		return append(b, '.', '0')
	}
	var d [7]byte
	d[0] = '.'
	for i := 6; i >= 1; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 7
	for d[n-1] == '0' {
		n--
	}
	return append(b, d[:n]...)
}

// msFromNS converts a nanosecond duration to milliseconds as ns * 1e-6,
// which reproduces the binary rounding artifacts of real AIPerf exports
// (136.59787799999998, 138.46932999999999): parsers must cope with 17
// significant digits.
func msFromNS(ns int64) float64 {
	return float64(ns) * 1e-6
}
