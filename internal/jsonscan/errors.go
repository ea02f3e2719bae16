package jsonscan

import (
	"bytes"
	"fmt"
	"strconv"
)

// SyntaxError describes malformed JSON at a byte offset of the record.
type SyntaxError struct {
	Offset int // 0-based byte offset in the record
	Msg    string
	EOF    bool // the record ended inside a value
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON: %s at byte %d", e.Msg, e.Offset+1)
}

// Fail returns a SyntaxError at the scanner's position, for problems a
// decoder finds in the shape of well-formed input (such as its own depth
// bound).
func (s *Scanner) Fail(format string, args ...any) error {
	return &SyntaxError{Offset: s.pos, Msg: fmt.Sprintf(format, args...)}
}

// Describe names byte c for an error message: 'x' when printable, else
// "byte 0x01".
func Describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// problem is a kind of syntax error; each dialect words it its own way.
type problem uint8

const (
	errValue      problem = iota // no value starts with c
	errLiteral                   // c inside the literal arg
	errNumber                    // c in the integer part
	errFraction                  // c after the decimal point
	errExponent                  // c in the exponent
	errMemberSep                 // c after an object member
	errKey                       // c where a key belongs
	errColon                     // c after a key
	errElementSep                // c after an array element
	errWant                      // c where a value of kind arg belongs
	errControl                   // raw control character c in a string
	errEscape                    // unknown escape \c
	errUnicode                   // malformed \u escape
	errDepth                     // nesting past MaxDepth
	errTrailing                  // data after the value
	errUTF8                      // invalid UTF-8 in a kept string
)

func (s *Scanner) fail(p problem, c byte, arg string) error {
	if bytes.HasPrefix(s.data[s.pos:], bom) && len(bytes.TrimLeft(s.data[:s.pos], " \t\r\n")) == 0 {
		// Editors on Windows start files with one; its first byte read as
		// a character ("ï") says nothing.
		return &SyntaxError{Offset: s.pos, Msg: "UTF-8 byte order mark (BOM) before the record; save the file as UTF-8 without BOM"}
	}
	return &SyntaxError{Offset: s.pos, Msg: s.word(p, c, arg)}
}

// bom is the UTF-8 byte order mark.
var bom = []byte{0xEF, 0xBB, 0xBF}

// unexpected reports the byte at the position, or the end of the record.
func (s *Scanner) unexpected(p problem) error {
	if s.pos >= len(s.data) {
		return s.eof()
	}
	return s.fail(p, s.data[s.pos], "")
}

func (s *Scanner) eof() error {
	msg := "unexpected end of input"
	if s.Dialect == Python {
		msg = "unexpected end of record"
	}
	return &SyntaxError{Offset: s.pos, Msg: msg, EOF: true}
}

// eofString is eof inside a string.
func (s *Scanner) eofString() error {
	err := s.eof().(*SyntaxError)
	if s.Dialect == Python {
		err.Msg = "unterminated string"
	}
	return err
}

func (s *Scanner) word(p problem, c byte, arg string) string {
	if s.Dialect == Python {
		switch p {
		case errControl:
			return "control character in string"
		case errEscape:
			return "invalid escape"
		case errUnicode:
			return `invalid \u escape`
		case errDepth:
			return fmt.Sprintf("nesting deeper than %d", s.maxDepth())
		case errTrailing:
			return "unexpected data after the record"
		case errUTF8:
			return "invalid UTF-8 in string"
		}
		return fmt.Sprintf("unexpected character %q", c)
	}
	switch p {
	case errValue:
		return fmt.Sprintf("invalid character %s looking for beginning of value", Describe(c))
	case errLiteral:
		return fmt.Sprintf("invalid character %s in literal %s", Describe(c), arg)
	case errNumber:
		return fmt.Sprintf("invalid character %s in number", Describe(c))
	case errFraction:
		return fmt.Sprintf("invalid character %s after decimal point in number", Describe(c))
	case errExponent:
		return fmt.Sprintf("invalid character %s in exponent of number", Describe(c))
	case errMemberSep:
		return fmt.Sprintf("expected ',' or '}' after object member, found %s", Describe(c))
	case errKey:
		return fmt.Sprintf("expected string object key, found %s", Describe(c))
	case errColon:
		return fmt.Sprintf("expected ':' after object key, found %s", Describe(c))
	case errElementSep:
		return fmt.Sprintf("expected ',' or ']' after array element, found %s", Describe(c))
	case errWant:
		return fmt.Sprintf("expected %s, found %s", arg, Describe(c))
	case errControl:
		return fmt.Sprintf("invalid control character %s in string", Describe(c))
	case errEscape:
		return fmt.Sprintf("invalid escape %s in string", Describe(c))
	case errUnicode:
		return `invalid \u escape in string`
	case errDepth:
		return fmt.Sprintf("nesting deeper than %d levels", s.maxDepth())
	case errTrailing:
		return "unexpected data after the record's JSON value"
	}
	return "invalid UTF-8 in string"
}
