package catalog

import (
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
