package catalog

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"

	"github.com/dsight/dsight/internal/shard"
)

// Column builders: each reads row i of a collection through a getter so the
// table layout reads as a list of (name, field) pairs.

func strCol(name string, n int, get func(int) string) shard.Column {
	c := shard.Column{Name: name, Type: shard.String, Strings: make([]string, n)}
	for i := range n {
		c.Strings[i] = get(i)
	}
	return c
}

func optStrCol(name string, n int, get func(int) *string) shard.Column {
	c := shard.Column{Name: name, Type: shard.String, Strings: make([]string, n), Valid: make([]bool, n)}
	for i := range n {
		if p := get(i); p != nil {
			c.Strings[i], c.Valid[i] = *p, true
		}
	}
	return c
}

func intCol(name string, n int, get func(int) int64) shard.Column {
	c := shard.Column{Name: name, Type: shard.Int64, Ints: make([]int64, n)}
	for i := range n {
		c.Ints[i] = get(i)
	}
	return c
}

func optIntCol(name string, n int, get func(int) *int64) shard.Column {
	c := shard.Column{Name: name, Type: shard.Int64, Ints: make([]int64, n), Valid: make([]bool, n)}
	for i := range n {
		if p := get(i); p != nil {
			c.Ints[i], c.Valid[i] = *p, true
		}
	}
	return c
}

func optFloatCol(name string, n int, get func(int) *float64) shard.Column {
	c := shard.Column{Name: name, Type: shard.Float64, Floats: make([]float64, n), Valid: make([]bool, n)}
	for i := range n {
		if p := get(i); p != nil {
			c.Floats[i], c.Valid[i] = *p, true
		}
	}
	return c
}

// reader looks columns up by name and type, remembering the first problem
// so decoding code stays a flat list of field reads.
type reader struct {
	t   *shard.Table
	err error
}

func (r *reader) col(name string, typ shard.Type) *shard.Column {
	c, ok := r.t.Column(name)
	switch {
	case r.err != nil:
		return nil
	case !ok:
		r.err = fmt.Errorf("table %s: missing column %s", r.t.Name, name)
		return nil
	case c.Type != typ:
		r.err = fmt.Errorf("table %s: column %s is %v, want %v", r.t.Name, name, c.Type, typ)
		return nil
	}
	return c
}

func valid(c *shard.Column, i int) bool { return c.Valid == nil || c.Valid[i] }

func (r *reader) strs(name string) func(int) string {
	c := r.col(name, shard.String)
	return func(i int) string {
		if c == nil {
			return ""
		}
		return c.Strings[i]
	}
}

// Optional getters point into the decoded column instead of allocating a
// value per row: a 100,000-request catalog would otherwise cost millions of
// small allocations, which the browser's wasm engine pays for at every load.

func (r *reader) optStrs(name string) func(int) *string {
	c := r.col(name, shard.String)
	return func(i int) *string {
		if c == nil || !valid(c, i) {
			return nil
		}
		return &c.Strings[i]
	}
}

func (r *reader) ints(name string) func(int) int64 {
	c := r.col(name, shard.Int64)
	return func(i int) int64 {
		if c == nil {
			return 0
		}
		return c.Ints[i]
	}
}

func (r *reader) optInts(name string) func(int) *int64 {
	c := r.col(name, shard.Int64)
	return func(i int) *int64 {
		if c == nil || !valid(c, i) {
			return nil
		}
		return &c.Ints[i]
	}
}

func (r *reader) optFloats(name string) func(int) *float64 {
	c := r.col(name, shard.Float64)
	return func(i int) *float64 {
		if c == nil || !valid(c, i) {
			return nil
		}
		return &c.Floats[i]
	}
}

// Optional references are stored as two nullable columns, <name>_source and
// <name>_line, null together.
func optRefSource(name string, n int, get func(int) *model.Ref) shard.Column {
	return optIntCol(name, n, func(i int) *int64 {
		if r := get(i); r != nil {
			v := int64(r.Source)
			return &v
		}
		return nil
	})
}

func optRefLine(name string, n int, get func(int) *model.Ref) shard.Column {
	return optIntCol(name, n, func(i int) *int64 {
		if r := get(i); r != nil {
			return &r.Line
		}
		return nil
	})
}

func (r *reader) optRef(name string) func(int) *model.Ref {
	src, line := r.optInts(name+"_source"), r.optInts(name+"_line")
	var refs []model.Ref // allocated once, on the first present reference
	return func(i int) *model.Ref {
		s, l := src(i), line(i)
		if s == nil || l == nil {
			return nil
		}
		if refs == nil {
			refs = make([]model.Ref, r.t.Rows)
		}
		refs[i] = model.Ref{Source: int(*s), Line: *l}
		return &refs[i]
	}
}
