package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// Kind is the type of the JSON value at the scanner's position.
type Kind uint8

// Value kinds. In the Python dialect NaN, Infinity and -Infinity are Numbers.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// Dialect is the grammar a Scanner accepts and the wording of its errors.
type Dialect uint8

const (
	// JSON is RFC 8259 as encoding/json reads it, with its error wording.
	JSON Dialect = iota
	// Python adds the literals NaN, Infinity and -Infinity as numbers, and
	// words errors tersely ("unexpected character 'x'").
	Python
)

// DefaultMaxDepth is the nesting bound of a Scanner whose MaxDepth is 0.
const DefaultMaxDepth = 512

// Scanner walks one JSON text held in memory. Callers read the values they
// want and leave the rest: Object and Array skip any value their callback did
// not consume. Byte slices it returns alias the record or the scanner's
// scratch space and are valid until the next string is read.
type Scanner struct {
	// Dialect is the grammar accepted; the zero value is JSON.
	Dialect Dialect
	// MaxDepth bounds how many arrays and objects may nest; 0 means
	// DefaultMaxDepth.
	MaxDepth int
	// StrictSurrogates makes Str refuse an unpaired surrogate escape
	// (\ud800) instead of decoding it as U+FFFD, for readers whose strings
	// are identifiers that must not be rewritten.
	StrictSurrogates bool
	// Replaced counts the strings (since the scanner was made) in which
	// invalid UTF-8 or an unpaired surrogate escape became U+FFFD, so that
	// a reader that keeps replaced text can count what it rewrote.
	Replaced int

	data    []byte
	pos     int
	depth   int    // containers open through Object and Array
	scratch []byte // unescaped strings
	fixed   []byte // strings with invalid UTF-8 replaced
	// keys interns names: a run repeats a few dozen attribute keys and span
	// names across millions of records. slots fronts it (see Intern); made
	// on first use, so that a scanner that interns nothing stays small.
	keys  map[string]string
	slots *[internSlots]string
}

// Reset points the scanner at a new record.
func (s *Scanner) Reset(data []byte) {
	s.data, s.pos, s.depth = data, 0, 0
}

// Pos is the byte offset of the scanner in the record.
func (s *Scanner) Pos() int { return s.pos }

func (s *Scanner) maxDepth() int {
	if s.MaxDepth > 0 {
		return s.MaxDepth
	}
	return DefaultMaxDepth
}

func (s *Scanner) space() {
	// Compact records have no spaces: one comparison settles most calls.
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return
	}
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// PeekByte returns the next non-space byte without consuming it; the end of
// the record is an error.
func (s *Scanner) PeekByte() (byte, error) {
	s.space()
	if s.pos >= len(s.data) {
		return 0, s.eof()
	}
	return s.data[s.pos], nil
}

// Consume steps over the byte PeekByte returned.
func (s *Scanner) Consume() { s.pos++ }

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
	case c == '-' || (c >= '0' && c <= '9'):
		return Number
	case (c == 'N' || c == 'I') && s.Dialect == Python:
		return Number
	}
	return Invalid
}

// AtEnd reports whether only whitespace is left.
func (s *Scanner) AtEnd() bool {
	s.space()
	return s.pos >= len(s.data)
}

// End checks that only whitespace follows the value just read.
func (s *Scanner) End() error {
	if !s.AtEnd() {
		return s.fail(errTrailing, 0, "")
	}
	return nil
}

// Literal consumes the literal word (true, false, null, …).
func (s *Scanner) Literal(word string) error {
	for i := 0; i < len(word); i++ {
		if s.pos >= len(s.data) {
			return s.eof()
		}
		if s.data[s.pos] != word[i] {
			return s.fail(errLiteral, s.data[s.pos], word)
		}
		s.pos++
	}
	return nil
}

// IsNull consumes a null literal if one is next and reports whether it did.
func (s *Scanner) IsNull() (bool, error) {
	c, err := s.PeekByte()
	if err != nil || c != 'n' {
		return false, err
	}
	return true, s.Literal("null")
}

// Null consumes a null and reports true, or consumes nothing and reports false.
func (s *Scanner) Null() bool {
	if s.Peek() != Null {
		return false
	}
	at := s.pos
	if s.Literal("null") != nil {
		s.pos = at
		return false
	}
	return true
}

// Bool consumes a boolean.
func (s *Scanner) Bool() (bool, error) {
	s.space()
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case 't':
			return true, s.Literal("true")
		case 'f':
			return false, s.Literal("false")
		}
	}
	return false, s.unexpected(errValue)
}

// OpenObject consumes the '{' of an object. Members are then read with
// NextMember until it reports done:
//
//	for first := true; ; first = false {
//		key, done, err := s.NextMember(first)
//		…consume the value of key…
//	}
func (s *Scanner) OpenObject() error {
	c, err := s.PeekByte()
	if err != nil {
		return err
	}
	if c != '{' {
		return s.fail(errWant, c, "object")
	}
	s.pos++
	return nil
}

// NextMember reads the next key and its ':' (leaving the value to the
// caller), or the closing '}'. The key aliases the record or scratch space.
func (s *Scanner) NextMember(first bool) (key []byte, done bool, err error) {
	if key := s.compactKey(first); key != nil {
		return key, false, nil
	}
	c, err := s.PeekByte()
	if err != nil {
		return nil, false, err
	}
	switch {
	case c == '}':
		s.pos++
		return nil, true, nil
	case !first && c == ',':
		s.pos++
		if c, err = s.PeekByte(); err != nil {
			return nil, false, err
		}
	case !first:
		return nil, false, s.fail(errMemberSep, c, "")
	}
	if c != '"' {
		return nil, false, s.fail(errKey, c, "")
	}
	if key, err = s.StrBytes(); err != nil {
		return nil, false, err
	}
	if c, err = s.PeekByte(); err != nil {
		return nil, false, err
	}
	if c != ':' {
		return nil, false, s.fail(errColon, c, "")
	}
	s.pos++
	if _, err = s.PeekByte(); err != nil {
		return nil, false, err
	}
	return key, false, nil
}

// compactKey reads a member written compactly, `"key":` (after a ',' unless
// first) with an ASCII key without escapes and no space around, up to its
// value, which must follow at once. Anything else returns nil and leaves
// the position alone for the general path, which reads such a member to
// the same key and position. Machine-written records are all compact.
func (s *Scanner) compactKey(first bool) []byte {
	d, i := s.data, s.pos
	if !first {
		if i >= len(d) || d[i] != ',' {
			return nil
		}
		i++
	}
	if i >= len(d) || d[i] != '"' {
		return nil
	}
	i++
	start := i
	i = plainRun(d, i)
	// The value's first byte must be there and not a space, as PeekByte
	// would leave it.
	if i == start || i+2 >= len(d) || d[i] != '"' || d[i+1] != ':' || d[i+2] <= ' ' {
		return nil
	}
	s.pos = i + 2
	return d[start:i]
}

// keyByte marks the ASCII bytes other than controls, quote and backslash:
// the bytes of a string that reads as itself.
var keyByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// OpenArray consumes the '[' of an array; elements are then announced by
// NextElement until it reports done.
func (s *Scanner) OpenArray() error {
	c, err := s.PeekByte()
	if err != nil {
		return err
	}
	if c != '[' {
		return s.fail(errWant, c, "array")
	}
	s.pos++
	return nil
}

// NextElement consumes the ',' before an element, or the closing ']'.
func (s *Scanner) NextElement(first bool) (done bool, err error) {
	c, err := s.PeekByte()
	if err != nil {
		return false, err
	}
	switch {
	case c == ']':
		s.pos++
		return true, nil
	case !first && c == ',':
		s.pos++
		_, err = s.PeekByte()
		return false, err
	case !first:
		return false, s.fail(errElementSep, c, "")
	}
	return false, nil
}

// Object visits the members of the object at the current position. fn gets
// each unescaped key (valid until the scanner reads another string) and may
// consume the member's value; an unconsumed value is skipped. A nil fn skips
// every value.
func (s *Scanner) Object(fn func(key []byte) error) error {
	if err := s.enter('{'); err != nil {
		return err
	}
	if err := s.OpenObject(); err != nil {
		return err
	}
	s.depth++
	for first := true; ; first = false {
		key, done, err := s.NextMember(first)
		if err != nil {
			return err
		}
		if done {
			s.depth--
			return nil
		}
		at := s.pos
		if fn != nil {
			if err := fn(key); err != nil {
				return err
			}
		}
		if s.pos == at {
			if err := s.SkipAt(s.depth); err != nil {
				return err
			}
		}
	}
}

// Array visits the elements of the array at the current position; fn may
// consume each element, which is skipped otherwise. A nil fn skips them all.
func (s *Scanner) Array(fn func(index int) error) error {
	if fn == nil {
		fn = func(int) error { return nil }
	}
	if err := s.enter('['); err != nil {
		return err
	}
	if err := s.OpenArray(); err != nil {
		return err
	}
	s.depth++
	for i := 0; ; i++ {
		done, err := s.NextElement(i == 0)
		if err != nil {
			return err
		}
		if done {
			s.depth--
			return nil
		}
		at := s.pos
		if err := fn(i); err != nil {
			return err
		}
		if s.pos == at {
			if err := s.SkipAt(s.depth); err != nil {
				return err
			}
		}
	}
}

// enter checks the nesting bound before a container at s.depth opens.
func (s *Scanner) enter(open byte) error {
	s.space()
	if s.depth >= s.maxDepth() && s.pos < len(s.data) && s.data[s.pos] == open {
		return s.fail(errDepth, 0, "")
	}
	return nil
}

// Skip consumes one value of any kind, validating it.
func (s *Scanner) Skip() error { return s.SkipAt(s.depth) }

// SkipAt consumes one value that sits inside depth arrays or objects,
// validating it; a container that would nest deeper than MaxDepth is an
// error.
func (s *Scanner) SkipAt(depth int) error {
	c, err := s.PeekByte()
	if err != nil {
		return err
	}
	switch {
	case c == '{':
		if depth >= s.maxDepth() {
			return s.fail(errDepth, 0, "")
		}
		s.pos++
		for first := true; ; first = false {
			done, err := s.skipKey(first)
			if err != nil || done {
				return err
			}
			if err := s.SkipAt(depth + 1); err != nil {
				return err
			}
		}
	case c == '[':
		if depth >= s.maxDepth() {
			return s.fail(errDepth, 0, "")
		}
		s.pos++
		for first := true; ; first = false {
			done, err := s.NextElement(first)
			if err != nil || done {
				return err
			}
			if d := s.data[s.pos]; d-'0' < 10 {
				// Latency arrays hold hundreds of plain numbers per record.
				if _, err := s.number(); err != nil {
					return err
				}
			} else if err := s.SkipAt(depth + 1); err != nil {
				return err
			}
		}
	case c == '"':
		_, _, err = s.stringBytes()
		return err
	case c == 't':
		return s.Literal("true")
	case c == 'f':
		return s.Literal("false")
	case c == 'n':
		return s.Literal("null")
	case c == '-' || (c >= '0' && c <= '9') || ((c == 'N' || c == 'I') && s.Dialect == Python):
		_, err = s.number()
		return err
	}
	return s.fail(errValue, c, "")
}

// skipKey is NextMember for a member whose key nobody reads: the key is
// validated but not decoded.
func (s *Scanner) skipKey(first bool) (done bool, err error) {
	c, err := s.PeekByte()
	if err != nil {
		return false, err
	}
	switch {
	case c == '}':
		s.pos++
		return true, nil
	case !first && c == ',':
		s.pos++
		if c, err = s.PeekByte(); err != nil {
			return false, err
		}
	case !first:
		return false, s.fail(errMemberSep, c, "")
	}
	if c != '"' {
		return false, s.fail(errKey, c, "")
	}
	if _, _, err = s.stringBytes(); err != nil {
		return false, err
	}
	if c, err = s.PeekByte(); err != nil {
		return false, err
	}
	if c != ':' {
		return false, s.fail(errColon, c, "")
	}
	s.pos++
	_, err = s.PeekByte()
	return false, err
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

// Truthy consumes one value and reports Python truthiness, the test the
// reference applies to error fields: null, false, zero, "", [] and {} are
// false; NaN is true.
func (s *Scanner) Truthy() (bool, error) {
	switch s.Peek() {
	case Null:
		return false, s.Literal("null")
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
	return false, s.unexpected(errValue)
}

// Intern returns a string for b, sharing storage with earlier equal ones.
// A small direct-mapped cache fronts the table: a record repeats a few
// dozen keys, names and short values on every span, and comparing against
// the one string a slot holds costs less than hashing into the table. A
// miss (a new string, or two strings sharing a slot) goes to the table and
// takes the slot; either way the string returned has the bytes asked for.
func (s *Scanner) Intern(b []byte) string {
	if s.slots == nil {
		s.slots = new([internSlots]string)
	}
	e := &s.slots[internSlot(b)]
	if *e == string(b) {
		return *e
	}
	v, ok := s.keys[string(b)]
	if !ok {
		v = string(b)
		if s.keys == nil {
			s.keys = make(map[string]string)
		}
		if len(s.keys) < maxInterned {
			s.keys[v] = v
		}
	}
	*e = v
	return v
}

const internSlots = 512

// internSlot mixes the length with the first and last eight bytes: keys
// such as dynamo.lifecycle.schema and dynamo.lifecycle.profile differ in
// their ends, values such as roles in their starts.
func internSlot(b []byte) uint {
	n := len(b)
	var x uint64
	if n >= 8 {
		x = binary.LittleEndian.Uint64(b) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[n-8:]), 29)
	} else {
		for _, c := range b {
			x = x<<8 | uint64(c)
		}
	}
	x ^= uint64(n) << 56
	return uint((x * 0x9E3779B97F4A7C15) >> (64 - 9))
}

// maxInterned bounds the intern table; names past it are simply copied.
const maxInterned = 1 << 14
