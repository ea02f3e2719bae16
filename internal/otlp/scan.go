package otlp

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a strict, allocation-light JSON reader over one in-memory
// record. It walks the OTLP schema directly instead of building a generic
// tree, which is what makes large collector exports cheap to read. It accepts
// only what encoding/json accepts (the fuzz target checks this), except that
// it bounds nesting at maxDepth.
type scanner struct {
	data []byte
	pos  int
	// keys interns attribute keys and span names: a run repeats a few dozen
	// of them across millions of spans.
	keys map[string]string
	tmp  []byte // reused buffer for strings with escapes
}

// maxDepth bounds nesting so a hostile record cannot exhaust the stack.
const maxDepth = 64

// syntaxError is a JSON-level problem at a byte offset of the record.
type syntaxError struct {
	off int
	msg string
	eof bool // input ended inside a value
}

func (e *syntaxError) Error() string { return e.msg }

func (s *scanner) fail(format string, args ...any) error {
	return &syntaxError{off: s.pos, msg: fmt.Sprintf(format, args...)}
}

func (s *scanner) failEOF() error {
	return &syntaxError{off: s.pos, msg: "unexpected end of input", eof: true}
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it.
func (s *scanner) peek() (byte, error) {
	s.ws()
	if s.pos >= len(s.data) {
		return 0, s.failEOF()
	}
	return s.data[s.pos], nil
}

func (s *scanner) describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// isNull consumes a null literal if one is next.
func (s *scanner) isNull() (bool, error) {
	c, err := s.peek()
	if err != nil || c != 'n' {
		return false, err
	}
	return true, s.literal("null")
}

func (s *scanner) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if s.pos >= len(s.data) {
			return s.failEOF()
		}
		if s.data[s.pos] != word[i] {
			return s.fail("invalid character %s in literal %s", s.describe(s.data[s.pos]), word)
		}
		s.pos++
	}
	return nil
}

// openObject consumes the '{' of an object. Members are then read with
// nextMember until it reports done:
//
//	for first := true; ; first = false {
//		key, done, err := s.nextMember(first)
//		…consume the value of key…
//	}
func (s *scanner) openObject() error {
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c != '{' {
		return s.fail("expected object, found %s", s.describe(c))
	}
	s.pos++
	return nil
}

// nextMember reads the next key and its ':' (leaving the value to the
// caller), or the closing '}'. The key aliases the record or scratch space.
func (s *scanner) nextMember(first bool) (key []byte, done bool, err error) {
	c, err := s.peek()
	if err != nil {
		return nil, false, err
	}
	switch {
	case c == '}':
		s.pos++
		return nil, true, nil
	case !first && c == ',':
		s.pos++
		if c, err = s.peek(); err != nil {
			return nil, false, err
		}
	case !first:
		return nil, false, s.fail("expected ',' or '}' after object member, found %s", s.describe(c))
	}
	if c != '"' {
		return nil, false, s.fail("expected string object key, found %s", s.describe(c))
	}
	if key, err = s.str(); err != nil {
		return nil, false, err
	}
	if c, err = s.peek(); err != nil {
		return nil, false, err
	}
	if c != ':' {
		return nil, false, s.fail("expected ':' after object key, found %s", s.describe(c))
	}
	s.pos++
	if _, err = s.peek(); err != nil {
		return nil, false, err
	}
	return key, false, nil
}

// openArray consumes the '[' of an array; elements are then announced by
// nextElement until it reports done.
func (s *scanner) openArray() error {
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c != '[' {
		return s.fail("expected array, found %s", s.describe(c))
	}
	s.pos++
	return nil
}

// nextElement consumes the ',' before an element, or the closing ']'.
func (s *scanner) nextElement(first bool) (done bool, err error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	switch {
	case c == ']':
		s.pos++
		return true, nil
	case !first && c == ',':
		s.pos++
		_, err = s.peek()
		return false, err
	case !first:
		return false, s.fail("expected ',' or ']' after array element, found %s", s.describe(c))
	}
	return false, nil
}

// str reads a string and returns its decoded bytes. The result aliases the
// record or the scanner's scratch buffer: copy it before the next call.
func (s *scanner) str() ([]byte, error) {
	c, err := s.peek()
	if err != nil {
		return nil, err
	}
	if c != '"' {
		return nil, s.fail("expected string, found %s", s.describe(c))
	}
	s.pos++
	start := s.pos
	ascii := true
	for i := start; i < len(s.data); i++ {
		switch b := s.data[i]; {
		case b == '"':
			s.pos = i + 1
			if ascii || utf8.Valid(s.data[start:i]) {
				return s.data[start:i], nil
			}
			return s.slowString(start)
		case b == '\\':
			return s.slowString(start)
		case b < 0x20:
			s.pos = i
			return nil, s.fail("invalid control character %s in string", s.describe(b))
		case b >= utf8.RuneSelf:
			ascii = false
		}
	}
	s.pos = len(s.data)
	return nil, s.failEOF()
}

// slowString decodes escapes and replaces invalid UTF-8 with U+FFFD, as
// encoding/json does.
func (s *scanner) slowString(start int) ([]byte, error) {
	out := s.tmp[:0]
	i := start
	for i < len(s.data) {
		b := s.data[i]
		switch {
		case b == '"':
			s.pos = i + 1
			s.tmp = out
			return out, nil
		case b < 0x20:
			s.pos = i
			return nil, s.fail("invalid control character %s in string", s.describe(b))
		case b == '\\':
			if i+1 >= len(s.data) {
				s.pos = len(s.data)
				return nil, s.failEOF()
			}
			esc := s.data[i+1]
			i += 2
			switch esc {
			case '"', '\\', '/':
				out = append(out, esc)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, n, err := s.unicodeEscape(i)
				if err != nil {
					return nil, err
				}
				i = n
				out = utf8.AppendRune(out, r)
			default:
				s.pos = i - 1
				return nil, s.fail("invalid escape %s in string", s.describe(esc))
			}
		case b < utf8.RuneSelf:
			out = append(out, b)
			i++
		default:
			r, size := utf8.DecodeRune(s.data[i:])
			out = utf8.AppendRune(out, r) // RuneError for invalid bytes
			i += size
		}
	}
	s.pos = len(s.data)
	return nil, s.failEOF()
}

// unicodeEscape decodes the hex digits after "\u" at i (and a following
// low surrogate) and returns the rune and the index after it.
func (s *scanner) unicodeEscape(i int) (rune, int, error) {
	hex := func(at int) (rune, error) {
		if at+4 > len(s.data) {
			s.pos = len(s.data)
			return 0, s.failEOF()
		}
		var r rune
		for _, c := range s.data[at : at+4] {
			switch {
			case '0' <= c && c <= '9':
				c -= '0'
			case 'a' <= c && c <= 'f':
				c = c - 'a' + 10
			case 'A' <= c && c <= 'F':
				c = c - 'A' + 10
			default:
				s.pos = at
				return 0, s.fail("invalid \\u escape in string")
			}
			r = r*16 + rune(c)
		}
		return r, nil
	}
	r, err := hex(i)
	if err != nil {
		return 0, 0, err
	}
	i += 4
	if utf16.IsSurrogate(r) {
		if i+1 < len(s.data) && s.data[i] == '\\' && s.data[i+1] == 'u' {
			r2, err := hex(i + 2)
			if err != nil {
				return 0, 0, err
			}
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, i + 6, nil
			}
		}
		return utf8.RuneError, i, nil
	}
	return r, i, nil
}

// number reads a JSON number and returns its literal text.
func (s *scanner) number() ([]byte, error) {
	start := s.pos
	d := s.data
	i := start
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i >= len(d) {
		s.pos = i
		return nil, s.failEOF()
	}
	if d[i] == '0' {
		i++
	} else if digits() == 0 {
		s.pos = i
		return nil, s.fail("invalid character %s in number", s.describe(d[i]))
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			s.pos = i
			if i >= len(d) {
				return nil, s.failEOF()
			}
			return nil, s.fail("invalid character %s after decimal point in number", s.describe(d[i]))
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			s.pos = i
			if i >= len(d) {
				return nil, s.failEOF()
			}
			return nil, s.fail("invalid character %s in exponent of number", s.describe(d[i]))
		}
	}
	s.pos = i
	return d[start:i], nil
}

// skip validates and discards one value.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.fail("nesting deeper than %d levels", maxDepth)
	}
	c, err := s.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '{':
		s.pos++
		for first := true; ; first = false {
			_, done, err := s.nextMember(first)
			if err != nil || done {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
		}
	case c == '[':
		s.pos++
		for first := true; ; first = false {
			done, err := s.nextElement(first)
			if err != nil || done {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
		}
	case c == '"':
		_, err = s.str()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		_, err = s.number()
		return err
	}
	return s.fail("invalid character %s looking for beginning of value", s.describe(c))
}

// intern returns a string for b, sharing storage with earlier equal keys.
func (s *scanner) intern(b []byte) string {
	if v, ok := s.keys[string(b)]; ok {
		return v
	}
	v := string(b)
	if len(s.keys) < maxInterned {
		s.keys[v] = v
	}
	return v
}

// maxInterned bounds the intern table; names past it are simply copied.
const maxInterned = 1 << 14

func isSyntaxEOF(err error) bool {
	var se *syntaxError
	return errors.As(err, &se) && se.eof
}
