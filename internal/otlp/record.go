package otlp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// schemaError is well-formed JSON that does not fit the OTLP schema.
type schemaError struct{ msg string }

func (e *schemaError) Error() string { return e.msg }

func schemaErrorf(format string, args ...any) error {
	return &schemaError{msg: fmt.Sprintf(format, args...)}
}

// spanError is a problem inside one span of a record.
type spanError struct {
	ordinal int
	err     error
}

func (e *spanError) Error() string { return fmt.Sprintf("span #%d: %v", e.ordinal, e.err) }
func (e *spanError) Unwrap() error { return e.err }

// field wraps an error from decoding the value of key. Errors that already
// name their span, and JSON syntax errors (which carry a column), are not
// wrapped again: the outer path would only repeat the schema.
func field(key string, err error) error {
	if err == nil {
		return nil
	}
	return wrapField(key, err)
}

func wrapField(key string, err error) error {
	var se *spanError
	var syn *syntaxError
	if errors.As(err, &se) || errors.As(err, &syn) {
		return err
	}
	return fmt.Errorf("%s: %w", key, err)
}

// recordDecoder walks one OTLP/JSON ExportTraceServiceRequest and collects
// its spans; they are handed out only when the whole record decoded.
type recordDecoder struct {
	s     *scanner
	path  string
	line  int64      // the record's line, for a JSONL record
	lines *lineIndex // offsets to lines, for a multi-line document
	spans []Span     // the record's spans so far; a span's ordinal is its index
	// scratch is reused by attributes; it may hold stale values.
	scratch Attributes
}

func (d *recordDecoder) lineAt(off int) int64 {
	if d.lines != nil {
		return d.lines.lineAt(off)
	}
	return d.line
}

// wrongType reports a value of the wrong JSON type, or a syntax error when
// what follows is not a JSON value at all.
func (d *recordDecoder) wrongType(want string) error {
	c, err := d.s.peek()
	if err != nil {
		return err
	}
	var found string
	switch {
	case c == '{':
		found = "object"
	case c == '[':
		found = "array"
	case c == '"':
		found = "string"
	case c == 't' || c == 'f':
		found = "boolean"
	case c == 'n':
		found = "null"
	case c == '-' || (c >= '0' && c <= '9'):
		found = "number"
	default:
		return d.s.fail("invalid character %s looking for beginning of value", d.s.describe(c))
	}
	// Validate the rest so a syntax error further on is not masked as a
	// type error.
	if err := d.s.skip(0); err != nil {
		return err
	}
	return schemaErrorf("expected %s, found %s", want, found)
}

// openObject consumes the '{' of an object and reports true, or consumes a
// null (an absent object) and reports false.
func (d *recordDecoder) openObject() (bool, error) {
	c, err := d.s.peek()
	if err != nil {
		return false, err
	}
	switch c {
	case '{':
		d.s.pos++
		return true, nil
	case 'n':
		return false, d.s.literal("null")
	}
	return false, d.wrongType("object")
}

// openArray is openObject for arrays.
func (d *recordDecoder) openArray() (bool, error) {
	c, err := d.s.peek()
	if err != nil {
		return false, err
	}
	switch c {
	case '[':
		d.s.pos++
		return true, nil
	case 'n':
		return false, d.s.literal("null")
	}
	return false, d.wrongType("array")
}

// stringOrNull reads a string; null reads as "".
func (d *recordDecoder) stringOrNull() ([]byte, error) {
	c, err := d.s.peek()
	if err != nil {
		return nil, err
	}
	switch c {
	case '"':
		return d.s.str()
	case 'n':
		return nil, d.s.literal("null")
	}
	return nil, d.wrongType("string")
}

// discardFrom drops the spans decoded since mark. A repeated key replaces
// the earlier value, as it does for encoding/json and Python's json module.
func (d *recordDecoder) discardFrom(mark int) {
	clear(d.spans[mark:])
	d.spans = d.spans[:mark]
}

func (d *recordDecoder) record() error {
	c, err := d.s.peek()
	if err != nil {
		return err
	}
	if c != '{' {
		return field("record", d.wrongType("object"))
	}
	d.s.pos++
	mark := len(d.spans)
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil || done {
			return err
		}
		if string(key) != "resourceSpans" {
			if err := d.s.skip(1); err != nil {
				return err
			}
			continue
		}
		d.discardFrom(mark)
		if err := d.resourceSpansList(); err != nil {
			return field("resourceSpans", err)
		}
	}
}

func (d *recordDecoder) resourceSpansList() error {
	ok, err := d.openArray()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		if done, err := d.s.nextElement(first); err != nil || done {
			return err
		}
		if err := d.resourceSpans(); err != nil {
			return err
		}
	}
}

func (d *recordDecoder) resourceSpans() error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	res := &Resource{}
	mark := len(d.spans)
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil || done {
			return err
		}
		switch string(key) {
		case "resource":
			err = field("resource", d.resource(res))
		case "scopeSpans":
			d.discardFrom(mark)
			err = field("scopeSpans", d.scopeSpansList(res))
		default:
			err = d.s.skip(2)
		}
		if err != nil {
			return err
		}
	}
}

func (d *recordDecoder) resource(res *Resource) error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil || done {
			return err
		}
		if string(key) == "attributes" {
			res.Attrs, err = d.attributes(0)
			err = field("attributes", err)
		} else {
			err = d.s.skip(3)
		}
		if err != nil {
			return err
		}
	}
}

func (d *recordDecoder) scopeSpansList(res *Resource) error {
	ok, err := d.openArray()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		if done, err := d.s.nextElement(first); err != nil || done {
			return err
		}
		if err := d.scopeSpans(res); err != nil {
			return err
		}
	}
}

func (d *recordDecoder) scopeSpans(res *Resource) error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	scope := &Scope{}
	mark := len(d.spans)
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil || done {
			return err
		}
		switch string(key) {
		case "scope":
			err = field("scope", d.scope(scope))
		case "spans":
			d.discardFrom(mark)
			err = field("spans", d.spanList(res, scope))
		default:
			err = d.s.skip(3)
		}
		if err != nil {
			return err
		}
	}
}

func (d *recordDecoder) scope(scope *Scope) error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil || done {
			return err
		}
		var b []byte
		switch string(key) {
		case "name":
			b, err = d.stringOrNull()
			scope.Name = d.s.intern(b)
			err = field("name", err)
		case "version":
			b, err = d.stringOrNull()
			scope.Version = d.s.intern(b)
			err = field("version", err)
		case "attributes":
			scope.Attrs, err = d.attributes(0)
			err = field("attributes", err)
		default:
			err = d.s.skip(4)
		}
		if err != nil {
			return err
		}
	}
}

func (d *recordDecoder) spanList(res *Resource, scope *Scope) error {
	ok, err := d.openArray()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		if done, err := d.s.nextElement(first); err != nil || done {
			return err
		}
		if err := d.span(res, scope); err != nil {
			return err
		}
	}
}

func (d *recordDecoder) span(res *Resource, scope *Scope) error {
	ordinal := len(d.spans)
	err := d.spanFields(res, scope)
	if err != nil {
		var syn *syntaxError
		if errors.As(err, &syn) {
			return err
		}
		return &spanError{ordinal: ordinal, err: err}
	}
	return nil
}

func (d *recordDecoder) spanFields(res *Resource, scope *Scope) error {
	line := d.lineAt(d.s.pos)
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	d.spans = append(d.spans, Span{Resource: res, Scope: scope, Ref: Ref{Path: d.path, Line: line, Ordinal: len(d.spans)}})
	sp := &d.spans[len(d.spans)-1]
	var haveStart, haveEnd bool
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil {
			return err
		}
		if done {
			break
		}
		var b []byte
		switch string(key) {
		case "traceId":
			b, err = d.stringOrNull()
			sp.TraceID = string(b)
			err = field("traceId", err)
		case "spanId":
			b, err = d.stringOrNull()
			sp.SpanID = string(b)
			err = field("spanId", err)
		case "parentSpanId":
			b, err = d.stringOrNull()
			sp.ParentSpanID = string(b)
			err = field("parentSpanId", err)
		case "traceState":
			b, err = d.stringOrNull()
			sp.TraceState = string(b)
			err = field("traceState", err)
		case "name":
			b, err = d.stringOrNull()
			sp.Name = d.s.intern(b)
			err = field("name", err)
		case "kind":
			var n int32
			n, err = d.enum(spanKindByName)
			sp.Kind = SpanKind(n)
			err = field("kind", err)
		case "startTimeUnixNano":
			haveStart, sp.StartNS, err = d.nanos()
			err = field("startTimeUnixNano", err)
		case "endTimeUnixNano":
			haveEnd, sp.EndNS, err = d.nanos()
			err = field("endTimeUnixNano", err)
		case "attributes":
			sp.Attrs, err = d.attributes(0)
			err = field("attributes", err)
		case "status":
			err = field("status", d.status(&sp.Status))
		default:
			err = d.s.skip(4)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case sp.TraceID == "":
		return schemaErrorf("missing traceId")
	case sp.SpanID == "":
		return schemaErrorf("missing spanId")
	case !haveStart:
		return schemaErrorf("missing startTimeUnixNano")
	case !haveEnd:
		return schemaErrorf("missing endTimeUnixNano")
	}
	return nil
}

func (d *recordDecoder) status(st *Status) error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil || done {
			return err
		}
		switch string(key) {
		case "code":
			var n int32
			n, err = d.enum(statusCodeByName)
			st.Code = StatusCode(n)
			err = field("code", err)
		case "message":
			var b []byte
			b, err = d.stringOrNull()
			st.Message = string(b)
			err = field("message", err)
		default:
			err = d.s.skip(5)
		}
		if err != nil {
			return err
		}
	}
}

// enum reads an OTLP enum as its number or its name.
func (d *recordDecoder) enum(byName func(string) (int32, bool)) (int32, error) {
	c, err := d.s.peek()
	if err != nil {
		return 0, err
	}
	switch {
	case c == 'n':
		return 0, d.s.literal("null")
	case c == '"':
		b, err := d.s.str()
		if err != nil {
			return 0, err
		}
		if n, ok := byName(string(b)); ok {
			return n, nil
		}
		return 0, schemaErrorf("unknown enum name %q", b)
	case c == '-' || (c >= '0' && c <= '9'):
		b, err := d.s.number()
		if err != nil {
			return 0, err
		}
		n, err := parseInt(b)
		if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			return 0, schemaErrorf("enum value %s is not an int32", b)
		}
		return int32(n), nil
	}
	return 0, d.wrongType("enum number or name")
}

func spanKindByName(name string) (int32, bool) {
	k, ok := spanKindNames[name]
	return int32(k), ok
}

func statusCodeByName(name string) (int32, bool) {
	c, ok := statusNames[name]
	return int32(c), ok
}

// nanos reads a fixed64 timestamp (a decimal string, or a JSON integer in
// hand-written documents) exactly, without passing through float64.
func (d *recordDecoder) nanos() (present bool, ns int64, err error) {
	c, err := d.s.peek()
	if err != nil {
		return false, 0, err
	}
	var b []byte
	switch {
	case c == 'n':
		return false, 0, d.s.literal("null")
	case c == '"':
		b, err = d.s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		b, err = d.s.number()
	default:
		return false, 0, d.wrongType("decimal string")
	}
	if err != nil {
		return false, 0, err
	}
	if len(b) > 0 && b[0] == '-' {
		return false, 0, schemaErrorf("%q is negative", b)
	}
	ns, err = parseInt(b)
	return err == nil, ns, err
}

var errNotInteger = errors.New("not a decimal integer")

// parseInt parses an optionally negative decimal int64, with no tolerance
// for signs, spaces, fractions or exponents.
func parseInt(b []byte) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	if len(digits) == 0 {
		return 0, fmt.Errorf("%q: %w", b, errNotInteger)
	}
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q: %w", b, errNotInteger)
		}
		if n > (math.MaxUint64-9)/10 {
			return 0, schemaErrorf("%q is out of int64 range", b)
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, schemaErrorf("%q is out of int64 range", b)
		}
		return int64(-n), nil
	}
	if n > math.MaxInt64 {
		return 0, schemaErrorf("%q is out of int64 range", b)
	}
	return int64(n), nil
}

// attributes reads a KeyValue list. Top-level lists are gathered in a
// reused scratch slice and copied out at their exact size, which saves the
// repeated growth of one slice per span.
func (d *recordDecoder) attributes(depth int) (Attributes, error) {
	ok, err := d.openArray()
	if !ok || err != nil {
		return nil, err
	}
	var attrs Attributes
	if depth == 0 {
		attrs = d.scratch[:0]
	}
	for first := true; ; first = false {
		done, err := d.s.nextElement(first)
		if err != nil || done {
			if depth == 0 {
				d.scratch = attrs[:0]
				if len(attrs) == 0 {
					return nil, err
				}
				attrs = append(Attributes(nil), attrs...)
			}
			return attrs, err
		}
		attrs = append(attrs, Attr{})
		if err := d.keyValue(&attrs[len(attrs)-1], depth); err != nil {
			if depth == 0 {
				d.scratch = attrs[:0]
			}
			return nil, field("#"+strconv.Itoa(len(attrs)-1), err)
		}
	}
}

func (d *recordDecoder) keyValue(kv *Attr, depth int) error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil || done {
			return err
		}
		switch string(key) {
		case "key":
			var b []byte
			b, err = d.stringOrNull()
			kv.Key = d.s.intern(b)
			err = field("key", err)
		case "value":
			kv.Value, err = d.anyValue(depth + 1)
			if err != nil {
				err = wrapField("value", err)
				if kv.Key != "" {
					err = wrapField(strconv.Quote(kv.Key), err)
				}
			}
		default:
			err = d.s.skip(depth + 2)
		}
		if err != nil {
			return err
		}
	}
}

// anyValue reads an AnyValue object: at most one of its fields may be set.
func (d *recordDecoder) anyValue(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, d.s.fail("nesting deeper than %d levels", maxDepth)
	}
	var v Value
	ok, err := d.openObject()
	if !ok || err != nil {
		return v, err
	}
	set := 0
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil {
			return v, err
		}
		if done {
			break
		}
		if null, err := d.s.isNull(); null || err != nil {
			if err != nil {
				return v, err
			}
			continue
		}
		var name string
		switch string(key) {
		case "stringValue":
			name = "stringValue"
			var b []byte
			if b, err = d.stringOrNull(); err == nil {
				v = Value{kind: KindString, str: d.internValue(b)}
			}
		case "boolValue":
			name = "boolValue"
			v, err = d.boolValue()
		case "intValue":
			name = "intValue"
			v, err = d.intValue()
		case "doubleValue":
			name = "doubleValue"
			v, err = d.doubleValue()
		case "bytesValue":
			name = "bytesValue"
			v, err = d.bytesValue()
		case "arrayValue":
			name = "arrayValue"
			v, err = d.arrayValue(depth)
		case "kvlistValue":
			name = "kvlistValue"
			v, err = d.kvlistValue(depth)
		default:
			if err := d.s.skip(depth + 1); err != nil {
				return v, err
			}
			continue
		}
		if err != nil {
			return v, field(name, err)
		}
		set++
	}
	if set > 1 {
		return v, schemaErrorf("more than one AnyValue field set")
	}
	return v, nil
}

// internValue shares storage for short values (roles, hosts, phases), which
// repeat on every span; long values such as UUIDs are copied.
func (d *recordDecoder) internValue(b []byte) string {
	if len(b) <= 24 {
		return d.s.intern(b)
	}
	return string(b)
}

func (d *recordDecoder) boolValue() (Value, error) {
	c, err := d.s.peek()
	if err != nil {
		return Value{}, err
	}
	switch c {
	case 't':
		return BoolValue(true), d.s.literal("true")
	case 'f':
		return BoolValue(false), d.s.literal("false")
	}
	return Value{}, d.wrongType("boolean")
}

func (d *recordDecoder) intValue() (Value, error) {
	c, err := d.s.peek()
	if err != nil {
		return Value{}, err
	}
	var b []byte
	switch {
	case c == '"':
		b, err = d.s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		b, err = d.s.number()
	default:
		return Value{}, d.wrongType("decimal string")
	}
	if err != nil {
		return Value{}, err
	}
	n, err := parseInt(b)
	return IntValue(n), err
}

func (d *recordDecoder) doubleValue() (Value, error) {
	c, err := d.s.peek()
	if err != nil {
		return Value{}, err
	}
	switch {
	case c == '"':
		b, err := d.s.str()
		if err != nil {
			return Value{}, err
		}
		switch string(b) {
		case "NaN":
			return DoubleValue(math.NaN()), nil
		case "Infinity":
			return DoubleValue(math.Inf(1)), nil
		case "-Infinity":
			return DoubleValue(math.Inf(-1)), nil
		}
		if !isJSONNumber(b) {
			return Value{}, schemaErrorf("%q is not a number", b)
		}
		return parseDouble(b)
	case c == '-' || (c >= '0' && c <= '9'):
		b, err := d.s.number()
		if err != nil {
			return Value{}, err
		}
		return parseDouble(b)
	}
	return Value{}, d.wrongType("number")
}

func parseDouble(b []byte) (Value, error) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return Value{}, schemaErrorf("%q is out of double range", b)
	}
	return DoubleValue(f), nil
}

// isJSONNumber reports whether b is exactly one JSON number.
func isJSONNumber(b []byte) bool {
	s := scanner{data: b}
	_, err := s.number()
	return err == nil && s.pos == len(b)
}

func (d *recordDecoder) bytesValue() (Value, error) {
	b, err := d.stringOrNull()
	if err != nil {
		return Value{}, err
	}
	// protojson accepts standard or URL alphabets, padded or not.
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if out, err := enc.DecodeString(string(b)); err == nil {
			return Value{kind: KindBytes, str: string(out)}, nil
		}
	}
	return Value{}, schemaErrorf("invalid base64")
}

// arrayValue reads {"values":[AnyValue…]}.
func (d *recordDecoder) arrayValue(depth int) (Value, error) {
	v := Value{kind: KindArray}
	ok, err := d.openObject()
	if !ok || err != nil {
		return v, err
	}
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil || done {
			return v, err
		}
		if string(key) != "values" {
			if err := d.s.skip(depth + 2); err != nil {
				return v, err
			}
			continue
		}
		v.items = v.items[:0]
		if err := d.arrayValues(&v, depth); err != nil {
			return v, field("values", err)
		}
	}
}

func (d *recordDecoder) arrayValues(v *Value, depth int) error {
	ok, err := d.openArray()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		done, err := d.s.nextElement(first)
		if err != nil || done {
			return err
		}
		e, err := d.anyValue(depth + 2)
		if err != nil {
			return field("#"+strconv.Itoa(len(v.items)), err)
		}
		v.items = append(v.items, Attr{Value: e})
	}
}

// kvlistValue reads {"values":[KeyValue…]}.
func (d *recordDecoder) kvlistValue(depth int) (Value, error) {
	v := Value{kind: KindKVList}
	ok, err := d.openObject()
	if !ok || err != nil {
		return v, err
	}
	for first := true; ; first = false {
		key, done, err := d.s.nextMember(first)
		if err != nil || done {
			return v, err
		}
		if string(key) != "values" {
			if err := d.s.skip(depth + 2); err != nil {
				return v, err
			}
			continue
		}
		attrs, err := d.attributes(depth + 2)
		v.items = attrs
		if err != nil {
			return v, field("values", err)
		}
	}
}
