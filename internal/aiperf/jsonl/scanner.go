package jsonl

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the type of the JSON value at the scanner's position.
type Kind uint8

// Value kinds. NaN, Infinity and -Infinity are Numbers.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// MaxDepth bounds nesting so that hostile input cannot exhaust the stack.
const MaxDepth = 512

// SyntaxError describes malformed JSON at a byte offset of the record.
type SyntaxError struct {
	Offset int // 0-based byte offset in the record
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON: %s at byte %d", e.Msg, e.Offset+1)
}

// Scanner walks one JSON text held in memory. Callers read the values they
// want and leave the rest: Object and Array skip any value their callback did
// not consume.
type Scanner struct {
	data    []byte
	pos     int
	depth   int
	scratch []byte
}

// Reset points the scanner at a new record.
func (s *Scanner) Reset(data []byte) {
	s.data, s.pos, s.depth = data, 0, 0
}

func (s *Scanner) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: s.pos, Msg: fmt.Sprintf(format, args...)}
}

func (s *Scanner) unexpected() error {
	if s.pos >= len(s.data) {
		return s.errorf("unexpected end of record")
	}
	return s.errorf("unexpected character %q", s.data[s.pos])
}

func (s *Scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// Peek returns the kind of the next value without consuming it.
func (s *Scanner) Peek() Kind {
	s.space()
	if s.pos >= len(s.data) {
		return Invalid
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	case c == '-' || c == 'N' || c == 'I' || (c >= '0' && c <= '9'):
		return Number
	}
	return Invalid
}

// End checks that only whitespace follows the value just read.
func (s *Scanner) End() error {
	s.space()
	if s.pos != len(s.data) {
		return s.errorf("unexpected data after the record")
	}
	return nil
}

func (s *Scanner) enter() error {
	s.depth++
	if s.depth > MaxDepth {
		return s.errorf("nesting deeper than %d", MaxDepth)
	}
	return nil
}

// Object visits the members of the object at the current position. fn gets
// each unescaped key (valid until the scanner reads another string) and may
// consume the member's value; an unconsumed value is skipped. A nil fn skips
// every value.
func (s *Scanner) Object(fn func(key []byte) error) error {
	s.space()
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return s.unexpected()
	}
	s.pos++
	if err := s.enter(); err != nil {
		return err
	}
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.space()
		key, err := s.key()
		if err != nil {
			return err
		}
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.unexpected()
		}
		s.pos++
		s.space()
		at := s.pos
		if fn != nil {
			if err := fn(key); err != nil {
				return err
			}
		}
		if s.pos == at {
			if err := s.Skip(); err != nil {
				return err
			}
		}
		s.space()
		if s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',':
				s.pos++
				continue
			case '}':
				s.pos++
				s.depth--
				return nil
			}
		}
		return s.unexpected()
	}
}

// Array visits the elements of the array at the current position; fn may
// consume each element, which is skipped otherwise. A nil fn skips them all.
func (s *Scanner) Array(fn func(index int) error) error {
	s.space()
	if s.pos >= len(s.data) || s.data[s.pos] != '[' {
		return s.unexpected()
	}
	s.pos++
	if err := s.enter(); err != nil {
		return err
	}
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for i := 0; ; i++ {
		s.space()
		at := s.pos
		if fn == nil && at < len(s.data) && s.data[at]-'0' < 10 {
			// Latency arrays hold hundreds of plain numbers per record.
			if _, err := s.num(); err != nil {
				return err
			}
		} else if fn != nil {
			if err := fn(i); err != nil {
				return err
			}
		}
		if s.pos == at {
			if err := s.Skip(); err != nil {
				return err
			}
		}
		s.space()
		if s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',':
				s.pos++
				continue
			case ']':
				s.pos++
				s.depth--
				return nil
			}
		}
		return s.unexpected()
	}
}

// Skip consumes one value of any kind, validating it.
func (s *Scanner) Skip() error {
	s.space()
	if s.pos >= len(s.data) {
		return s.unexpected()
	}
	switch c := s.data[s.pos]; c {
	case '{':
		return s.Object(nil)
	case '[':
		return s.Array(nil)
	case '"':
		_, _, err := s.stringBytes()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, err := s.num()
	return err
}

// Raw consumes one value and returns its bytes as written.
func (s *Scanner) Raw() ([]byte, error) {
	s.space()
	start := s.pos
	if err := s.Skip(); err != nil {
		return nil, err
	}
	return s.data[start:s.pos], nil
}

func (s *Scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.unexpected()
	}
	s.pos += len(word)
	return nil
}

// Null consumes a null and reports true, or consumes nothing and reports false.
func (s *Scanner) Null() bool {
	if s.Peek() == Null && s.literal("null") == nil {
		return true
	}
	return false
}

// Bool consumes a boolean.
func (s *Scanner) Bool() (bool, error) {
	s.space()
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case 't':
			return true, s.literal("true")
		case 'f':
			return false, s.literal("false")
		}
	}
	return false, s.unexpected()
}

// Num consumes a number and returns its literal: RFC 8259 grammar, or NaN,
// Infinity, -Infinity.
func (s *Scanner) Num() ([]byte, error) {
	s.space()
	return s.num()
}

// num reads a number at the current position (no leading whitespace).
func (s *Scanner) num() ([]byte, error) {
	d, start := s.data, s.pos
	i := start
	if i < len(d) && d[i] == 'N' {
		if err := s.literal("NaN"); err != nil {
			return nil, err
		}
		return d[start:s.pos], nil
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == 'I' {
		s.pos = i
		if err := s.literal("Infinity"); err != nil {
			return nil, err
		}
		return d[start:s.pos], nil
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i+1)
	default:
		s.pos = i
		return nil, s.unexpected()
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			s.pos = j
			return nil, s.unexpected()
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			s.pos = j
			return nil, s.unexpected()
		}
		i = j
	}
	s.pos = i
	return d[start:i], nil
}

// digits returns the index of the first non-digit at or after i.
func digits(d []byte, i int) int {
	for i < len(d) && d[i]-'0' < 10 {
		i++
	}
	return i
}

// Str consumes a string and returns it unescaped. Invalid UTF-8 is an error:
// a kept string must survive re-encoding unchanged.
func (s *Scanner) Str() (string, error) {
	raw, escaped, err := s.stringBytes()
	if err != nil {
		return "", err
	}
	if escaped {
		raw = unescape(s.scratch[:0], raw)
		s.scratch = raw[:0]
	}
	if !utf8.Valid(raw) {
		return "", s.errorf("invalid UTF-8 in string")
	}
	return string(raw), nil
}

// key reads an object key; escaped keys are unescaped into scratch.
func (s *Scanner) key() ([]byte, error) {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return nil, s.unexpected()
	}
	raw, escaped, err := s.stringBytes()
	if err != nil || !escaped {
		return raw, err
	}
	s.scratch = unescape(s.scratch[:0], raw)
	return s.scratch, nil
}

// stringBytes consumes a string and returns its raw content between the
// quotes, validating escapes and rejecting raw control characters.
func (s *Scanner) stringBytes() (raw []byte, escaped bool, err error) {
	s.space()
	d := s.data
	if s.pos >= len(d) || d[s.pos] != '"' {
		return nil, false, s.unexpected()
	}
	start := s.pos + 1
	for i := start; i < len(d); i++ {
		for i < len(d) && plain[d[i]] { // fast path over ordinary bytes
			i++
		}
		if i >= len(d) {
			break
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return d[start:i], escaped, nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(d) {
				s.pos = i
				return nil, false, s.unexpected()
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d) || !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
					s.pos = i
					return nil, false, s.errorf("invalid \\u escape")
				}
				i += 4
			default:
				s.pos = i
				return nil, false, s.errorf("invalid escape")
			}
		case c < 0x20:
			s.pos = i
			return nil, false, s.errorf("control character in string")
		}
	}
	s.pos = len(d)
	return nil, false, s.errorf("unterminated string")
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
// stringBytes) to dst. Unpaired surrogates become U+FFFD, as in encoding/json.
func unescape(dst, raw []byte) []byte {
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
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, raw[i])
		}
	}
	return dst
}

// Truthy consumes one value and reports Python truthiness, the test the
// reference applies to error fields: null, false, zero, "", [] and {} are
// false; NaN is true.
func (s *Scanner) Truthy() (bool, error) {
	switch s.Peek() {
	case Null:
		return false, s.literal("null")
	case Bool:
		return s.Bool()
	case Number:
		lit, err := s.Num()
		return err == nil && !isZero(lit), err
	case String:
		raw, _, err := s.stringBytes()
		return len(raw) > 0, err
	case Array:
		n := 0
		err := s.Array(func(int) error { n++; return nil })
		return n > 0, err
	case Object:
		n := 0
		err := s.Object(func([]byte) error { n++; return nil })
		return n > 0, err
	}
	return false, s.unexpected()
}
