package otlp

import (
	"errors"
	"fmt"
	"github.com/dsight/dsight/internal/model"
	"math"
)

// enum reads an OTLP enum as its number or its name.
func (d *recordDecoder) enum(byName func(string) (int32, bool)) (int32, error) {
	c, err := d.s.PeekByte()
	if err != nil {
		return 0, err
	}
	switch {
	case c == 'n':
		return 0, d.s.Literal("null")
	case c == '"':
		b, err := d.s.StrBytes()
		if err != nil {
			return 0, err
		}
		if n, ok := byName(string(b)); ok {
			return n, nil
		}
		return 0, schemaErrorf("unknown enum name %q", b)
	case c == '-' || (c >= '0' && c <= '9'):
		b, err := d.s.Num()
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

// OTLP/JSON may write enums by their proto names.
var (
	spanKindNames = map[string]model.SpanKind{
		"SPAN_KIND_UNSPECIFIED": model.SpanKindUnspecified, "SPAN_KIND_INTERNAL": model.SpanKindInternal,
		"SPAN_KIND_SERVER": model.SpanKindServer, "SPAN_KIND_CLIENT": model.SpanKindClient,
		"SPAN_KIND_PRODUCER": model.SpanKindProducer, "SPAN_KIND_CONSUMER": model.SpanKindConsumer,
	}
	statusNames = map[string]model.StatusCode{
		"STATUS_CODE_UNSET": model.SpanStatusUnset, "STATUS_CODE_OK": model.SpanStatusOK, "STATUS_CODE_ERROR": model.SpanStatusError,
	}
)

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
	c, err := d.s.PeekByte()
	if err != nil {
		return false, 0, err
	}
	var b []byte
	switch {
	case c == 'n':
		return false, 0, d.s.Literal("null")
	case c == '"':
		b, err = d.s.StrBytes()
	case c == '-' || (c >= '0' && c <= '9'):
		b, err = d.s.Num()
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
