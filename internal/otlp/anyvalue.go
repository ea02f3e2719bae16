package otlp

import (
	"encoding/base64"
	"github.com/dsight/dsight/internal/model"
	"math"
	"slices"
	"strconv"
)

// attributes reads a KeyValue list. A span's attributes are decoded
// straight into the record's slab (see keep); nested lists get their own
// slices.
func (d *recordDecoder) attributes(depth int) (model.Attributes, error) {
	ok, err := d.openArray()
	if !ok || err != nil {
		return nil, err
	}
	var attrs model.Attributes
	start := len(d.slab)
	if depth == 0 {
		attrs = d.slab
	}
	for first := true; ; first = false {
		done, err := d.s.NextElement(first)
		if err != nil || done {
			if depth == 0 {
				return d.keep(attrs, start, err)
			}
			return attrs, err
		}
		if depth == 0 && len(attrs) == cap(attrs) {
			// The slab is full: move this span's attributes so far to a
			// fresh one.
			var fresh model.Attributes
			if d.reuse != nil {
				fresh = d.reuse.slab(2 * (len(attrs) - start))[:len(attrs)-start]
				d.filled = append(d.filled, attrs[:start]) // the record's spans before this one
			} else {
				fresh = make(model.Attributes, len(attrs)-start, max(attrSlab, 2*(len(attrs)-start)))
			}
			copy(fresh, attrs[start:])
			attrs, start = fresh, 0
		}
		attrs = append(attrs, model.Attr{})
		if err := d.keyValue(&attrs[len(attrs)-1], depth); err != nil {
			if depth == 0 {
				d.keep(attrs, start, err)
			}
			return nil, field("#"+strconv.Itoa(len(attrs)-1-start), err)
		}
	}
}

// sharedAttributes are a resource's or scope's attributes, in their own
// allocation rather than the slab: many spans point at one resource, and
// a reader that keeps resources while it lets the spans go (one spilling
// spans to disk) must not keep every span's attributes with them.
func (d *recordDecoder) sharedAttributes() (model.Attributes, error) {
	attrs, err := d.attributes(0)
	if attrs != nil {
		attrs = slices.Clone(attrs)
	}
	return attrs, err
}

// keep ends a span's attributes, attrs[start:], in the slab shared by the
// record's spans: one allocation per few thousand attributes instead of one
// per span, which matters at millions of spans. Slab entries are never
// rewritten once kept. On error the slab forgets the partial list.
func (d *recordDecoder) keep(attrs model.Attributes, start int, err error) (model.Attributes, error) {
	if err != nil {
		d.slab = attrs[:start]
		return nil, err
	}
	d.slab = attrs
	if len(attrs) == start {
		return nil, nil
	}
	return attrs[start:len(attrs):len(attrs)], nil
}

// attrSlab is how many attributes one slab holds.
const attrSlab = 4096

func (d *recordDecoder) keyValue(kv *model.Attr, depth int) error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
		if err != nil || done {
			return err
		}
		switch string(key) {
		case "key":
			var b []byte
			b, err = d.stringOrNull()
			kv.Key = d.s.Intern(b)
			err = field("key", err)
		case "value":
			err = d.anyValueInto(&kv.Value, depth+1)
			if err != nil {
				err = wrapField("value", err)
				if kv.Key != "" {
					err = wrapField(strconv.Quote(kv.Key), err)
				}
			}
		default:
			err = d.s.SkipAt(depth + 2)
		}
		if err != nil {
			return err
		}
	}
}

// anyValue reads an AnyValue object: at most one of its fields may be set.
func (d *recordDecoder) anyValue(depth int) (model.Value, error) {
	var v model.Value
	err := d.anyValueInto(&v, depth)
	return v, err
}

// anyValueInto is anyValue decoding straight into *v (an attribute's value
// in the slab), which spares copying the value out; *v ends as anyValue
// would return it, error or not.
func (d *recordDecoder) anyValueInto(v *model.Value, depth int) error {
	*v = model.Value{}
	if depth > maxDepth {
		return d.s.Fail("nesting deeper than %d levels", maxDepth)
	}
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	set := 0
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
		if err != nil {
			return err
		}
		if done {
			break
		}
		if null, err := d.s.IsNull(); null || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		var name string
		switch string(key) {
		case "stringValue":
			name = "stringValue"
			var b []byte
			if b, err = d.stringOrNull(); err == nil {
				*v = model.StringValue(d.internValue(b))
			}
		case "boolValue":
			name = "boolValue"
			*v, err = d.boolValue()
		case "intValue":
			name = "intValue"
			*v, err = d.intValue()
		case "doubleValue":
			name = "doubleValue"
			*v, err = d.doubleValue()
		case "bytesValue":
			name = "bytesValue"
			*v, err = d.bytesValue()
		case "arrayValue":
			name = "arrayValue"
			*v, err = d.arrayValue(depth)
		case "kvlistValue":
			name = "kvlistValue"
			*v, err = d.kvlistValue(depth)
		default:
			if err := d.s.SkipAt(depth + 1); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return field(name, err)
		}
		set++
	}
	if set > 1 {
		return schemaErrorf("more than one AnyValue field set")
	}
	return nil
}

// internValue shares storage for short values (roles, hosts, phases), which
// repeat on every span; long values such as UUIDs are copied.
func (d *recordDecoder) internValue(b []byte) string {
	if len(b) <= 24 {
		return d.s.Intern(b)
	}
	return string(b)
}

func (d *recordDecoder) boolValue() (model.Value, error) {
	c, err := d.s.PeekByte()
	if err != nil {
		return model.Value{}, err
	}
	switch c {
	case 't':
		return model.BoolValue(true), d.s.Literal("true")
	case 'f':
		return model.BoolValue(false), d.s.Literal("false")
	}
	return model.Value{}, d.wrongType("boolean")
}

func (d *recordDecoder) intValue() (model.Value, error) {
	c, err := d.s.PeekByte()
	if err != nil {
		return model.Value{}, err
	}
	var b []byte
	switch {
	case c == '"':
		b, err = d.s.StrBytes()
	case c == '-' || (c >= '0' && c <= '9'):
		b, err = d.s.Num()
	default:
		return model.Value{}, d.wrongType("decimal string")
	}
	if err != nil {
		return model.Value{}, err
	}
	n, err := parseInt(b)
	return model.IntValue(n), err
}

func (d *recordDecoder) doubleValue() (model.Value, error) {
	c, err := d.s.PeekByte()
	if err != nil {
		return model.Value{}, err
	}
	switch {
	case c == '"':
		b, err := d.s.StrBytes()
		if err != nil {
			return model.Value{}, err
		}
		switch string(b) {
		case "NaN":
			return model.DoubleValue(math.NaN()), nil
		case "Infinity":
			return model.DoubleValue(math.Inf(1)), nil
		case "-Infinity":
			return model.DoubleValue(math.Inf(-1)), nil
		}
		if !isJSONNumber(b) {
			return model.Value{}, schemaErrorf("%q is not a number", b)
		}
		return parseDouble(b)
	case c == '-' || (c >= '0' && c <= '9'):
		b, err := d.s.Num()
		if err != nil {
			return model.Value{}, err
		}
		return parseDouble(b)
	}
	return model.Value{}, d.wrongType("number")
}

func parseDouble(b []byte) (model.Value, error) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return model.Value{}, schemaErrorf("%q is out of double range", b)
	}
	return model.DoubleValue(f), nil
}

func (d *recordDecoder) bytesValue() (model.Value, error) {
	b, err := d.stringOrNull()
	if err != nil {
		return model.Value{}, err
	}
	// protojson accepts standard or URL alphabets, padded or not.
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if out, err := enc.DecodeString(string(b)); err == nil {
			return model.BytesValue(out), nil
		}
	}
	return model.Value{}, schemaErrorf("invalid base64")
}

// arrayValue reads {"values":[AnyValue…]}.
func (d *recordDecoder) arrayValue(depth int) (model.Value, error) {
	var items []model.Attr
	ok, err := d.openObject()
	if !ok || err != nil {
		return model.ArrayOfItems(items), err
	}
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
		if err != nil || done {
			return model.ArrayOfItems(items), err
		}
		if string(key) != "values" {
			if err := d.s.SkipAt(depth + 2); err != nil {
				return model.ArrayOfItems(items), err
			}
			continue
		}
		items = items[:0]
		if items, err = d.arrayValues(items, depth); err != nil {
			return model.ArrayOfItems(items), field("values", err)
		}
	}
}

func (d *recordDecoder) arrayValues(items []model.Attr, depth int) ([]model.Attr, error) {
	ok, err := d.openArray()
	if !ok || err != nil {
		return items, err
	}
	for first := true; ; first = false {
		done, err := d.s.NextElement(first)
		if err != nil || done {
			return items, err
		}
		e, err := d.anyValue(depth + 2)
		if err != nil {
			return items, field("#"+strconv.Itoa(len(items)), err)
		}
		items = append(items, model.Attr{Value: e})
	}
}

// kvlistValue reads {"values":[KeyValue…]}.
func (d *recordDecoder) kvlistValue(depth int) (model.Value, error) {
	var members model.Attributes
	ok, err := d.openObject()
	if !ok || err != nil {
		return model.KVListValue(members...), err
	}
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
		if err != nil || done {
			return model.KVListValue(members...), err
		}
		if string(key) != "values" {
			if err := d.s.SkipAt(depth + 2); err != nil {
				return model.KVListValue(members...), err
			}
			continue
		}
		members, err = d.attributes(depth + 2)
		if err != nil {
			return model.KVListValue(members...), field("values", err)
		}
	}
}
