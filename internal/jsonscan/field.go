package jsonscan

import (
	"errors"
	"fmt"
)

// NumberField is a numeric field as a record wrote it: the literal, kept exact,
// and whether the key was present at all (a present key may hold null).
type NumberField struct {
	Lit     []byte
	Present bool
}

// ReadNumber reads a number literal or null at the scanner's position; any
// other value is skipped and reported under name, the field's path.
func (s *Scanner) ReadNumber(name string) (NumberField, error) {
	switch s.Peek() {
	case Null:
		s.Null()
		return NumberField{Present: true}, nil
	case Number:
		lit, err := s.Num()
		return NumberField{Lit: lit, Present: true}, err
	case Invalid:
		return NumberField{}, s.Skip()
	}
	if err := s.Skip(); err != nil {
		return NumberField{}, err
	}
	return NumberField{}, fmt.Errorf("%s is not a number", name)
}

// Count reads an integer count such as a token count:
// absent, null and non-finite values are unknown (nil), never zero.
func (n NumberField) Count(name string) (*int64, error) {
	if n.Lit == nil {
		return nil, nil
	}
	v, err := Int(n.Lit)
	if errors.Is(err, ErrNotFinite) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", name, n.Lit, err)
	}
	return &v, nil
}
