package tachometer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The TOML decoder reports the line of a syntax error but keeps no
// positions for the values it returns, so errors about a value (a wrong
// type, a duplicate endpoint name) take their line from scanKeyLines: a
// light pass over the already-validated document that records where every
// table and key is defined.

// keyLines maps a key path to the line that defines it. An element of an
// array (of tables or inline) is the path segment elementKey(i).
type keyLines map[string]int

// of returns the line of path, or of its nearest recorded parent; 0 when
// none is known.
func (k keyLines) of(path []string) int {
	for n := len(path); n > 0; n-- {
		if line, ok := k[pathKey(path[:n])]; ok {
			return line
		}
	}
	return 0
}

func pathKey(path []string) string {
	var b []byte
	for _, p := range path {
		b = appendField(b, p)
	}
	return string(b)
}

// elementKey is the path segment of element i of an array. A TOML key
// cannot be mistaken for it unless it spells out the same control byte.
func elementKey(i int) string { return "\x00#" + strconv.Itoa(i) }

func elementIndex(seg string) (int, bool) {
	rest, ok := strings.CutPrefix(seg, "\x00#")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	return i, err == nil
}

func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// lineScanner walks a TOML document, recording where its tables and keys
// are defined. It relies on the decoder having accepted the document and
// only needs to tell where values end; on any other input it still stops,
// since every loop consumes input.
type lineScanner struct {
	s      string
	i      int
	line   int
	lines  keyLines
	tables map[string]int // array of tables (by resolved path) → elements so far
}

func scanKeyLines(data []byte) keyLines {
	sc := &lineScanner{s: string(data), line: 1, lines: keyLines{}, tables: map[string]int{}}
	sc.s = strings.TrimPrefix(sc.s, "\ufeff")
	var context []string
	for {
		sc.skipBlank(true)
		if sc.i >= len(sc.s) {
			return sc.lines
		}
		start := sc.i
		if sc.s[sc.i] == '[' {
			context = sc.header()
		} else {
			sc.keyValue(context)
		}
		if sc.i == start {
			sc.i++ // not TOML the decoder accepted; move on
		}
	}
}

// keyValue reads `key = value` below the table at base, defining the key
// at the line it starts on.
func (sc *lineScanner) keyValue(base []string) {
	line := sc.line
	path := append(base[:len(base):len(base)], sc.key()...)
	sc.define(path, line)
	sc.skipBlank(false)
	if sc.i < len(sc.s) && sc.s[sc.i] == '=' {
		sc.i++
		sc.value(path)
	}
}

// define records path at line; the tables a dotted key implies get the line
// only when nothing defined them earlier.
func (sc *lineScanner) define(path []string, line int) {
	for n := 1; n < len(path); n++ {
		if k := pathKey(path[:n]); sc.lines[k] == 0 {
			sc.lines[k] = line
		}
	}
	if len(path) > 0 {
		sc.lines[pathKey(path)] = line
	}
}

// header reads a [table] or [[array.of.tables]] line and returns the
// context it opens.
func (sc *lineScanner) header() []string {
	line := sc.line
	array := strings.HasPrefix(sc.s[sc.i:], "[[")
	sc.i++
	if array {
		sc.i++
	}
	keys := sc.key()
	for sc.i < len(sc.s) && sc.s[sc.i] != '\n' && sc.s[sc.i] != ']' {
		sc.i++
	}
	for sc.i < len(sc.s) && sc.s[sc.i] == ']' {
		sc.i++
	}
	// A header below an array of tables extends its latest element.
	var path []string
	for n, k := range keys {
		path = append(path, k)
		last := n == len(keys)-1
		if last && array {
			count := sc.tables[pathKey(path)]
			sc.tables[pathKey(path)] = count + 1
			if sc.lines[pathKey(path)] == 0 { // the array itself: its first header
				sc.define(path, line)
			}
			path = append(path, elementKey(count))
		} else if count := sc.tables[pathKey(path)]; count > 0 {
			path = append(path, elementKey(count-1))
		}
	}
	sc.define(path, line)
	return path
}

// key reads a dotted key: bare, "basic" or 'literal' parts joined by dots.
func (sc *lineScanner) key() []string {
	var keys []string
	for {
		sc.skipBlank(false)
		if sc.i >= len(sc.s) {
			return keys
		}
		switch c := sc.s[sc.i]; {
		case c == '"':
			keys = append(keys, sc.basicString())
		case c == '\'':
			end := strings.IndexAny(sc.s[sc.i+1:], "'\n")
			if end < 0 {
				end = len(sc.s) - sc.i - 1
			}
			keys = append(keys, sc.s[sc.i+1:sc.i+1+end])
			sc.i = min(len(sc.s), sc.i+end+2)
		default:
			start := sc.i
			for sc.i < len(sc.s) && !strings.ContainsRune(" \t\r\n=.[]{},#\"'", rune(sc.s[sc.i])) {
				sc.i++
			}
			if sc.i == start {
				return keys
			}
			keys = append(keys, sc.s[start:sc.i])
		}
		sc.skipBlank(false)
		if sc.i >= len(sc.s) || sc.s[sc.i] != '.' {
			return keys
		}
		sc.i++
	}
}

// basicString reads a one-line "basic" string and returns its text.
func (sc *lineScanner) basicString() string {
	var b strings.Builder
	sc.i++ // opening quote
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case c == '"':
			sc.i++
			return b.String()
		case c == '\n':
			return b.String()
		case c == '\\' && sc.i+1 < len(sc.s):
			sc.i += 2
			switch e := sc.s[sc.i-1]; e {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'e':
				b.WriteByte(0x1b)
			case 'x', 'u', 'U':
				n := 2
				if e == 'u' {
					n = 4
				} else if e == 'U' {
					n = 8
				}
				if sc.i+n <= len(sc.s) {
					if r, err := strconv.ParseUint(sc.s[sc.i:sc.i+n], 16, 32); err == nil && utf8.ValidRune(rune(r)) {
						b.WriteRune(rune(r))
						sc.i += n
					}
				}
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			sc.i++
		}
	}
	return b.String()
}

// value skips the value of path, recording the keys and elements inside
// inline tables and arrays.
func (sc *lineScanner) value(path []string) {
	sc.skipBlank(false)
	if sc.i >= len(sc.s) {
		return
	}
	rest := sc.s[sc.i:]
	switch {
	case strings.HasPrefix(rest, `"""`), strings.HasPrefix(rest, `'''`):
		sc.multiline(rest[:3])
	case rest[0] == '"':
		sc.basicString()
	case rest[0] == '\'':
		end := strings.IndexAny(rest[1:], "'\n")
		if end < 0 {
			end = len(rest) - 1
		}
		sc.i = min(len(sc.s), sc.i+end+2)
	case rest[0] == '[':
		sc.i++
		for n := 0; ; n++ {
			sc.skipBlank(true)
			if sc.i >= len(sc.s) || sc.s[sc.i] == ']' {
				break
			}
			start := sc.i
			elem := append(path[:len(path):len(path)], elementKey(n))
			sc.define(elem, sc.line)
			sc.value(elem)
			sc.skipBlank(true)
			if sc.i < len(sc.s) && sc.s[sc.i] == ',' {
				sc.i++
			} else if sc.i == start {
				break
			}
		}
		if sc.i < len(sc.s) {
			sc.i++ // ]
		}
	case rest[0] == '{':
		sc.i++
		for {
			sc.skipBlank(true)
			if sc.i >= len(sc.s) || sc.s[sc.i] == '}' {
				break
			}
			if sc.s[sc.i] == ',' {
				sc.i++
				continue
			}
			start := sc.i
			sc.keyValue(path)
			if sc.i == start {
				break
			}
		}
		if sc.i < len(sc.s) {
			sc.i++ // }
		}
	default: // number, boolean, date or time
		end := strings.IndexAny(rest, ",]}#\r\n")
		if end < 0 {
			end = len(rest)
		}
		sc.i += end
	}
}

// multiline skips a multi-line string (delimited by three double or three
// single quotes), counting its lines. Up to two quotes right before the
// closing delimiter belong to the string.
func (sc *lineScanner) multiline(delim string) {
	sc.i += 3
	for sc.i < len(sc.s) {
		switch {
		case strings.HasPrefix(sc.s[sc.i:], delim):
			sc.i += 3
			for extra := 0; extra < 2 && sc.i < len(sc.s) && sc.s[sc.i] == delim[0]; extra++ {
				sc.i++
			}
			return
		case sc.s[sc.i] == '\\' && delim[0] == '"' && sc.i+1 < len(sc.s):
			if sc.s[sc.i+1] == '\n' {
				sc.line++
			}
			sc.i += 2
		default:
			if sc.s[sc.i] == '\n' {
				sc.line++
			}
			sc.i++
		}
	}
}

// skipBlank skips spaces and tabs, and with newlines also line breaks and
// comments.
func (sc *lineScanner) skipBlank(newlines bool) {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\r':
			sc.i++
		case '\n':
			if !newlines {
				return
			}
			sc.line++
			sc.i++
		case '#':
			if !newlines {
				return
			}
			end := strings.IndexByte(sc.s[sc.i:], '\n')
			if end < 0 {
				sc.i = len(sc.s)
				return
			}
			sc.i += end
		default:
			return
		}
	}
}
