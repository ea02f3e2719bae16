package spanspill

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/dsight/dsight/internal/model"
)

// A spilled span, every integer a varint (zigzag where signed):
//
//	trace_id · span_id · parent_span_id · trace_state           strings: length, bytes
//	name                                                       a name (below)
//	kind · start_ns · end_ns · status code · status message
//	attributes: count, then key (a name), value each
//	resource · scope   1-based index into the store's tables, 0 for none
//	ref: path index · line · ordinal
//
// A value is its kind byte (model.ValueKind) and then its payload, as in
// the evidence codec: a string or bytes, a varint, 8 little-endian bytes
// of a double, a bool byte, or a count and the items of an array or
// kvlist. The encoding never leaves the build that wrote it, so it has no
// magic or version.

// maxDepth bounds nested arrays and kvlists, as the evidence codec does.
const maxDepth = 64

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendSpan(b []byte, sp *model.Span, resource, scope, path uint64) []byte {
	return (*names)(nil).appendSpan(b, sp, resource, scope, path)
}

func (n *names) appendSpan(b []byte, sp *model.Span, resource, scope, path uint64) []byte {
	for _, s := range [...]string{sp.TraceID, sp.SpanID, sp.ParentSpanID, sp.TraceState} {
		b = appendStr(b, s)
	}
	b = n.appendName(b, sp.Name)
	b = binary.AppendVarint(b, int64(sp.Kind))
	b = binary.AppendVarint(b, sp.StartNS)
	b = binary.AppendVarint(b, sp.EndNS)
	b = binary.AppendVarint(b, int64(sp.Status.Code))
	b = appendStr(b, sp.Status.Message)
	b = n.appendAttrs(b, sp.Attrs)
	b = binary.AppendUvarint(b, resource)
	b = binary.AppendUvarint(b, scope)
	b = binary.AppendUvarint(b, path)
	b = binary.AppendVarint(b, sp.Ref.Line)
	return binary.AppendVarint(b, int64(sp.Ref.Ordinal))
}

func (n *names) appendAttrs(b []byte, a model.Attributes) []byte {
	b = binary.AppendUvarint(b, uint64(len(a)))
	for _, kv := range a {
		b = n.appendValue(n.appendName(b, kv.Key), kv.Value)
	}
	return b
}

func (n *names) appendValue(b []byte, v model.Value) []byte {
	b = append(b, byte(v.Kind()))
	switch v.Kind() {
	case model.KindString:
		s, _ := v.Str()
		b = appendStr(b, s)
	case model.KindBytes:
		s, _ := v.Bytes()
		b = appendStr(b, string(s))
	case model.KindInt:
		n, _ := v.Int()
		b = binary.AppendVarint(b, n)
	case model.KindDouble:
		f, _ := v.Double()
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	case model.KindBool:
		t, _ := v.Bool()
		if t {
			return append(b, 1)
		}
		return append(b, 0)
	case model.KindArray:
		items, _ := v.Array()
		b = binary.AppendUvarint(b, uint64(len(items)))
		for _, it := range items {
			b = n.appendValue(b, it)
		}
	case model.KindKVList:
		kvs, _ := v.KVList()
		b = n.appendAttrs(b, kvs)
	}
	return b
}

var errTruncated = errors.New("truncated")

// decoder reads spans back; the first error sticks and every later read
// returns zero values.
type decoder struct {
	b []byte
	// whole is every byte being decoded as one string: decoded strings are
	// substrings of it, one allocation per bucket rather than per string.
	whole     string
	err       error
	resources []*model.Resource
	scopes    []*model.Scope
	paths     []string
	names     []string // the store's names table (names.go)
	// slab holds the top-level attributes of every span of the read, one
	// allocation per bucket rather than per span (each span's slice is
	// capped at its length, so appending to one copies it out).
	slab model.Attributes
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(errTruncated)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(errTruncated)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a list length, refusing one the remaining bytes cannot
// hold (every item takes at least one byte).
func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail(errTruncated)
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	off := len(d.whole) - len(d.b)
	d.b = d.b[n:]
	return d.whole[off : off+n]
}

func (d *decoder) span(sp *model.Span) {
	sp.TraceID, sp.SpanID, sp.ParentSpanID, sp.TraceState, sp.Name = d.str(), d.str(), d.str(), d.str(), d.name()
	sp.Kind = model.SpanKind(d.int())
	sp.StartNS, sp.EndNS = d.int(), d.int()
	sp.Status.Code = model.StatusCode(d.int())
	sp.Status.Message = d.str()
	sp.Attrs = d.spanAttrs()
	sp.Resource = shared(d, d.resources, "resource")
	sp.Scope = shared(d, d.scopes, "scope")
	if p := d.uint(); p < uint64(len(d.paths)) {
		sp.Ref.Path = d.paths[p]
	} else {
		d.fail(fmt.Errorf("path %d of %d", p, len(d.paths)))
	}
	sp.Ref.Line = d.int()
	sp.Ref.Ordinal = int(d.int())
}

func shared[T any](d *decoder, list []*T, what string) *T {
	i := d.uint()
	if i == 0 {
		return nil
	}
	if i > uint64(len(list)) {
		d.fail(fmt.Errorf("%s %d of %d", what, i, len(list)))
		return nil
	}
	return list[i-1]
}

// spanAttrs reads a span's own attributes into the slab, or into a slice
// of their own once the slab is full (it is sized from the bucket's
// count, so only a corrupt bucket overflows it).
func (d *decoder) spanAttrs() model.Attributes {
	n := d.count()
	if n == 0 {
		return nil
	}
	if len(d.slab)+n > cap(d.slab) {
		return d.attrList(n, 0)
	}
	start := len(d.slab)
	d.slab = d.slab[:start+n]
	out := d.slab[start : start+n : start+n]
	d.fill(out, 0)
	if d.err != nil {
		return nil
	}
	return out
}

func (d *decoder) attrs(depth int) model.Attributes {
	n := d.count()
	if n == 0 {
		return nil
	}
	return d.attrList(n, depth)
}

func (d *decoder) attrList(n, depth int) model.Attributes {
	out := make(model.Attributes, n)
	d.fill(out, depth)
	if d.err != nil {
		return nil
	}
	return out
}

func (d *decoder) fill(out model.Attributes, depth int) {
	for k := range out {
		out[k].Key = d.name()
		out[k].Value = d.value(depth)
	}
}

func (d *decoder) value(depth int) model.Value {
	if len(d.b) == 0 {
		d.fail(errTruncated)
		return model.Value{}
	}
	kind := model.ValueKind(d.b[0])
	d.b = d.b[1:]
	switch kind {
	case model.KindEmpty:
		return model.Value{}
	case model.KindString:
		return model.StringValue(d.str())
	case model.KindBytes:
		return model.BytesValue([]byte(d.str()))
	case model.KindInt:
		return model.IntValue(d.int())
	case model.KindDouble:
		if len(d.b) < 8 {
			d.fail(errTruncated)
			return model.Value{}
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
		d.b = d.b[8:]
		return model.DoubleValue(f)
	case model.KindBool:
		if len(d.b) == 0 || d.b[0] > 1 {
			d.fail(errors.New("bad bool"))
			return model.Value{}
		}
		t := d.b[0] == 1
		d.b = d.b[1:]
		return model.BoolValue(t)
	case model.KindArray, model.KindKVList:
		if depth >= maxDepth {
			d.fail(errors.New("values nested too deeply"))
			return model.Value{}
		}
		if kind == model.KindKVList {
			return model.KVListValue(d.attrs(depth + 1)...)
		}
		n := d.count()
		items := make([]model.Attr, n)
		for k := range items {
			items[k].Value = d.value(depth + 1)
		}
		return model.ArrayOfItems(items)
	}
	d.fail(fmt.Errorf("value kind %d", kind))
	return model.Value{}
}
