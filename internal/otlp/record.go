package otlp

import (
	"errors"
	"fmt"
	"github.com/dsight/dsight/internal/model"
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
	line  int64        // the record's line, for a JSONL record
	lines *lineIndex   // offsets to lines, for a multi-line document
	spans []model.Span // the record's spans so far; a span's ordinal is its index
	// slab backs the attributes of the record's spans; see keep.
	slab model.Attributes
	// With Options.Transient, reuse lends the record its memory, and
	// filled lists the slabs the record's spans use, to give back.
	reuse  *recordMemory
	filled []model.Attributes
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
	c, err := d.s.PeekByte()
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
		return d.s.Fail("invalid character %s looking for beginning of value", quoteByte(c))
	}
	// Validate the rest so a syntax error further on is not masked as a
	// type error.
	if err := d.s.SkipAt(0); err != nil {
		return err
	}
	return schemaErrorf("expected %s, found %s", want, found)
}

// openObject consumes the '{' of an object and reports true, or consumes a
// null (an absent object) and reports false.
func (d *recordDecoder) openObject() (bool, error) {
	c, err := d.s.PeekByte()
	if err != nil {
		return false, err
	}
	switch c {
	case '{':
		d.s.Consume()
		return true, nil
	case 'n':
		return false, d.s.Literal("null")
	}
	return false, d.wrongType("object")
}

// openArray is openObject for arrays.
func (d *recordDecoder) openArray() (bool, error) {
	c, err := d.s.PeekByte()
	if err != nil {
		return false, err
	}
	switch c {
	case '[':
		d.s.Consume()
		return true, nil
	case 'n':
		return false, d.s.Literal("null")
	}
	return false, d.wrongType("array")
}

// stringOrNull reads a string; null reads as "".
func (d *recordDecoder) stringOrNull() ([]byte, error) {
	if b, ok := d.s.StrPlain(); ok { // ids, names, keys and most values
		return b, nil
	}
	c, err := d.s.PeekByte()
	if err != nil {
		return nil, err
	}
	switch c {
	case '"':
		return d.s.StrBytes()
	case 'n':
		return nil, d.s.Literal("null")
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
	c, err := d.s.PeekByte()
	if err != nil {
		return err
	}
	if c != '{' {
		return field("record", d.wrongType("object"))
	}
	d.s.Consume()
	mark := len(d.spans)
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
		if err != nil || done {
			return err
		}
		if string(key) != "resourceSpans" {
			if err := d.s.SkipAt(1); err != nil {
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
		if done, err := d.s.NextElement(first); err != nil || done {
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
	res := &model.Resource{}
	mark := len(d.spans)
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
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
			err = d.s.SkipAt(2)
		}
		if err != nil {
			return err
		}
	}
}

func (d *recordDecoder) resource(res *model.Resource) error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
		if err != nil || done {
			return err
		}
		if string(key) == "attributes" {
			res.Attrs, err = d.sharedAttributes()
			err = field("attributes", err)
		} else {
			err = d.s.SkipAt(3)
		}
		if err != nil {
			return err
		}
	}
}

func (d *recordDecoder) scopeSpansList(res *model.Resource) error {
	ok, err := d.openArray()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		if done, err := d.s.NextElement(first); err != nil || done {
			return err
		}
		if err := d.scopeSpans(res); err != nil {
			return err
		}
	}
}

func (d *recordDecoder) scopeSpans(res *model.Resource) error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	scope := &model.Scope{}
	mark := len(d.spans)
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
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
			err = d.s.SkipAt(3)
		}
		if err != nil {
			return err
		}
	}
}

func (d *recordDecoder) scope(scope *model.Scope) error {
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
		if err != nil || done {
			return err
		}
		var b []byte
		switch string(key) {
		case "name":
			b, err = d.stringOrNull()
			scope.Name = d.s.Intern(b)
			err = field("name", err)
		case "version":
			b, err = d.stringOrNull()
			scope.Version = d.s.Intern(b)
			err = field("version", err)
		case "attributes":
			scope.Attrs, err = d.sharedAttributes()
			err = field("attributes", err)
		default:
			err = d.s.SkipAt(4)
		}
		if err != nil {
			return err
		}
	}
}

func (d *recordDecoder) spanList(res *model.Resource, scope *model.Scope) error {
	ok, err := d.openArray()
	if !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		if done, err := d.s.NextElement(first); err != nil || done {
			return err
		}
		if err := d.span(res, scope); err != nil {
			return err
		}
	}
}

func (d *recordDecoder) span(res *model.Resource, scope *model.Scope) error {
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

func (d *recordDecoder) spanFields(res *model.Resource, scope *model.Scope) error {
	line := d.lineAt(d.s.Pos())
	ok, err := d.openObject()
	if !ok || err != nil {
		return err
	}
	d.spans = append(d.spans, model.Span{Resource: res, Scope: scope, Ref: model.SpanRef{Path: d.path, Line: line, Ordinal: len(d.spans)}})
	sp := &d.spans[len(d.spans)-1]
	prev := &noSpan // the record's previous span, whose ids this one often repeats
	if n := len(d.spans); n > 1 {
		prev = &d.spans[n-2]
	}
	var haveStart, haveEnd bool
	for first := true; ; first = false {
		key, done, err := d.s.NextMember(first)
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
			sp.TraceID = sameOr(prev.TraceID, b)
			err = field("traceId", err)
		case "spanId":
			b, err = d.stringOrNull()
			sp.SpanID = string(b)
			err = field("spanId", err)
		case "parentSpanId":
			b, err = d.stringOrNull()
			if prev.SpanID == string(b) {
				sp.ParentSpanID = prev.SpanID
			} else {
				sp.ParentSpanID = sameOr(prev.ParentSpanID, b)
			}
			err = field("parentSpanId", err)
		case "traceState":
			b, err = d.stringOrNull()
			sp.TraceState = string(b)
			err = field("traceState", err)
		case "name":
			b, err = d.stringOrNull()
			sp.Name = d.s.Intern(b)
			err = field("name", err)
		case "kind":
			var n int32
			n, err = d.enum(spanKindByName)
			sp.Kind = model.SpanKind(n)
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
			err = d.s.SkipAt(4)
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

// noSpan stands for the previous span of a record's first; it has no ids.
var noSpan model.Span

// sameOr returns b as a string, sharing old's storage when it holds the
// same bytes: a record keeps a trace's spans together, and a span's parent
// is often the span before it or that span's parent.
func sameOr(old string, b []byte) string {
	if old == string(b) {
		return old
	}
	return string(b)
}

func (d *recordDecoder) status(st *model.SpanStatus) error {
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
		case "code":
			var n int32
			n, err = d.enum(statusCodeByName)
			st.Code = model.StatusCode(n)
			err = field("code", err)
		case "message":
			var b []byte
			b, err = d.stringOrNull()
			st.Message = string(b)
			err = field("message", err)
		default:
			err = d.s.SkipAt(5)
		}
		if err != nil {
			return err
		}
	}
}
