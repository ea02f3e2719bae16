package shard

import (
	"errors"
	"fmt"
	"math"
)

// Column is one named column. Exactly the slice that matches Type is used,
// with len == table rows; the others must be empty.
//
// Valid == nil means every row is present; otherwise len(Valid) == rows and
// Valid[i] == false marks a null (unknown) value. Values at null rows are not
// stored: Decode leaves the zero value there.
type Column struct {
	Name    string
	Type    Type
	Valid   []bool
	Ints    []int64
	Floats  []float64
	Strings []string
	Bools   []bool
}

// Table is a set of equally long columns, in order.
type Table struct {
	Name    string
	Rows    int
	Columns []Column
}

// Column returns the column with the given name.
func (t *Table) Column(name string) (*Column, bool) {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i], true
		}
	}
	return nil, false
}

// Shard is the unit the report writes and the page loads: a kind (for
// example "core" or "metrics") and its tables, in order.
type Shard struct {
	Kind   string
	Tables []Table
}

// Table returns the table with the given name.
func (s *Shard) Table(name string) (*Table, bool) {
	for i := range s.Tables {
		if s.Tables[i].Name == name {
			return &s.Tables[i], true
		}
	}
	return nil, false
}

// IsNull reports whether row i holds no value.
func (c *Column) IsNull(i int) bool { return c.Valid != nil && !c.Valid[i] }

// valueCount is how many rows hold a value.
func (c *Column) valueCount(rows int) int {
	if c.Valid == nil {
		return rows
	}
	n := 0
	for _, v := range c.Valid {
		if v {
			n++
		}
	}
	return n
}

// valueLen is the length of the slice that matches the column's type.
func (c *Column) valueLen() int {
	switch c.Type {
	case Int64:
		return len(c.Ints)
	case Float64:
		return len(c.Floats)
	case String:
		return len(c.Strings)
	case Bool:
		return len(c.Bools)
	}
	return 0
}

// decodedCost is the memory Decode allocates for a column of rows rows,
// excluding dictionary bytes. Encode and Decode both add it, plus the
// dictionary bytes, to a running total that must stay under maxDecodedBytes.
func decodedCost(t Type, rows int, hasValid bool) int64 {
	per := int64(0)
	switch t {
	case Int64, Float64:
		per = 8
	case String:
		per = 16 // string header
	case Bool:
		per = 1
	}
	if hasValid {
		per++
	}
	return per * int64(rows)
}

var errNonFinite = errors.New("non-finite float (an unknown value must be a null, not NaN or Inf)")

// validate checks the structure Encode relies on, with the same rules Decode
// enforces, so an encoded shard always decodes. The decoded-size budget is
// checked while encoding, once the dictionaries are known.
func validate(s *Shard) error {
	if err := checkName("kind", s.Kind); err != nil {
		return err
	}
	if len(s.Tables) > maxTables {
		return fmt.Errorf("%d tables exceeds the limit of %d", len(s.Tables), maxTables)
	}
	tableNames := make(map[string]bool, len(s.Tables))
	for ti := range s.Tables {
		t := &s.Tables[ti]
		if err := checkName("table name", t.Name); err != nil {
			return fmt.Errorf("table %d: %w", ti, err)
		}
		if tableNames[t.Name] {
			return fmt.Errorf("table %q: duplicate table name", t.Name)
		}
		tableNames[t.Name] = true
		if err := validateTable(t); err != nil {
			return fmt.Errorf("table %q: %w", t.Name, err)
		}
	}
	return nil
}

func validateTable(t *Table) error {
	if t.Rows < 0 || t.Rows > maxRows {
		return fmt.Errorf("%d rows outside 0..%d", t.Rows, maxRows)
	}
	if len(t.Columns) > maxColumns {
		return fmt.Errorf("%d columns exceeds the limit of %d", len(t.Columns), maxColumns)
	}
	names := make(map[string]bool, len(t.Columns))
	for ci := range t.Columns {
		c := &t.Columns[ci]
		if err := checkName("column name", c.Name); err != nil {
			return fmt.Errorf("column %d: %w", ci, err)
		}
		if names[c.Name] {
			return fmt.Errorf("column %q: duplicate column name", c.Name)
		}
		names[c.Name] = true
		if err := validateColumn(c, t.Rows); err != nil {
			return fmt.Errorf("column %q: %w", c.Name, err)
		}
	}
	return nil
}

func validateColumn(c *Column, rows int) error {
	if !c.Type.valid() {
		return fmt.Errorf("invalid type %d", uint8(c.Type))
	}
	if c.Valid != nil && len(c.Valid) != rows {
		return fmt.Errorf("%d validity flags for %d rows", len(c.Valid), rows)
	}
	if n := c.valueLen(); n != rows {
		return fmt.Errorf("%d %s values for %d rows", n, c.Type, rows)
	}
	others := len(c.Ints) + len(c.Floats) + len(c.Strings) + len(c.Bools) - rows
	if others != 0 {
		return fmt.Errorf("%s column also holds values of another type", c.Type)
	}
	switch c.Type {
	case Float64:
		for i, f := range c.Floats {
			if !c.IsNull(i) && (math.IsNaN(f) || math.IsInf(f, 0)) {
				return fmt.Errorf("row %d: %w", i, errNonFinite)
			}
		}
	case String:
		for i, v := range c.Strings {
			if !c.IsNull(i) && len(v) > maxStringBytes {
				return fmt.Errorf("row %d: string of %d bytes exceeds the limit of %d", i, len(v), maxStringBytes)
			}
		}
	}
	return nil
}

func checkName(what, name string) error {
	if name == "" {
		return fmt.Errorf("empty %s", what)
	}
	if len(name) > maxNameBytes {
		return fmt.Errorf("%s of %d bytes exceeds the limit of %d", what, len(name), maxNameBytes)
	}
	return nil
}
