package jsonscan

import "unicode/utf8"

// The string and member readers as they were before their fast paths,
// kept as the oracle the fast paths are checked against.

func (s *Scanner) oracleSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *Scanner) oraclePeekByte() (byte, error) {
	s.oracleSpace()
	if s.pos >= len(s.data) {
		return 0, s.eof()
	}
	return s.data[s.pos], nil
}

func (s *Scanner) oracleStringBytes() (raw []byte, escaped bool, err error) {
	c, err := s.oraclePeekByte()
	if err != nil {
		return nil, false, err
	}
	if c != '"' {
		return nil, false, s.fail(errWant, c, "string")
	}
	d := s.data
	start := s.pos + 1
	for i := start; i < len(d); i++ {
		for i < len(d) && plain[d[i]] {
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
				return nil, false, s.eofString()
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d) {
					s.pos = len(d)
					return nil, false, s.eofString()
				}
				if !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
					s.pos = i + 1
					return nil, false, s.fail(errUnicode, 0, "")
				}
				i += 4
			default:
				s.pos = i
				return nil, false, s.fail(errEscape, d[i], "")
			}
		default:
			s.pos = i
			return nil, false, s.fail(errControl, c, "")
		}
	}
	s.pos = len(d)
	return nil, false, s.eofString()
}

func (s *Scanner) oracleStrBytes() ([]byte, error) {
	raw, escaped, err := s.oracleStringBytes()
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
	}
	if !utf8.Valid(raw) {
		s.fixed = replaceInvalid(s.fixed[:0], raw)
		raw = s.fixed
		s.Replaced++
	}
	return raw, nil
}

func (s *Scanner) oracleStr() (string, error) {
	start := s.pos
	raw, escaped, err := s.oracleStringBytes()
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
	}
	if !utf8.Valid(raw) {
		return "", s.fail(errUTF8, 0, "")
	}
	return string(raw), nil
}

func (s *Scanner) oracleNextMember(first bool) (key []byte, done bool, err error) {
	c, err := s.oraclePeekByte()
	if err != nil {
		return nil, false, err
	}
	switch {
	case c == '}':
		s.pos++
		return nil, true, nil
	case !first && c == ',':
		s.pos++
		if c, err = s.oraclePeekByte(); err != nil {
			return nil, false, err
		}
	case !first:
		return nil, false, s.fail(errMemberSep, c, "")
	}
	if c != '"' {
		return nil, false, s.fail(errKey, c, "")
	}
	if key, err = s.oracleStrBytes(); err != nil {
		return nil, false, err
	}
	if c, err = s.oraclePeekByte(); err != nil {
		return nil, false, err
	}
	if c != ':' {
		return nil, false, s.fail(errColon, c, "")
	}
	s.pos++
	if _, err = s.oraclePeekByte(); err != nil {
		return nil, false, err
	}
	return key, false, nil
}
