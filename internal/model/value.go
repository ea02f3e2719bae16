package model

import (
	"math"
	"strconv"
)

// ValueKind is the type an attribute value recorded (OTLP's AnyValue kinds).
type ValueKind uint8

// AnyValue kinds. KindEmpty is an AnyValue with no field set.
const (
	KindEmpty ValueKind = iota
	KindString
	KindInt
	KindDouble
	KindBool
	KindBytes
	KindArray
	KindKVList
)

var kindNames = [...]string{"empty", "string", "int", "double", "bool", "bytes", "array", "kvlist"}

func (k ValueKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one flattened AnyValue with its recorded type. Integers stay
// exact int64; doubles are float64 (NaN and ±Inf possible, as OTLP allows).
type Value struct {
	kind  ValueKind
	str   string // string, or decoded bytes
	num   uint64 // int64 bits, float64 bits, or 0/1 for bool
	items []Attr // array elements (empty keys) or kvlist members
}

// Attr is one key/value pair, in recorded order.
type Attr struct {
	Key   string
	Value Value
}

// Attributes are the recorded attributes of a span, resource or scope, in
// input order. Duplicate keys are kept; lookups see the last one, as a JSON
// object or dict would.
type Attributes []Attr

// StringValue, IntValue, DoubleValue and BoolValue build values, for tests
// and callers that synthesise lookups.
func StringValue(s string) Value   { return Value{kind: KindString, str: s} }
func IntValue(n int64) Value       { return Value{kind: KindInt, num: uint64(n)} }
func DoubleValue(f float64) Value  { return Value{kind: KindDouble, num: math.Float64bits(f)} }
func BoolValue(b bool) Value       { return Value{kind: KindBool, num: b2u(b)} }
func BytesValue(b []byte) Value    { return Value{kind: KindBytes, str: string(b)} }
func ArrayValue(vs ...Value) Value { return Value{kind: KindArray, items: arrayItems(vs)} }
func KVListValue(kvs ...Attr) Value {
	return Value{kind: KindKVList, items: kvs}
}

// ArrayOfItems builds an array value from its elements as a decoder
// collects them: pairs with empty keys, used as they are (not copied).
func ArrayOfItems(items []Attr) Value { return Value{kind: KindArray, items: items} }

func arrayItems(vs []Value) []Attr {
	items := make([]Attr, len(vs))
	for i, v := range vs {
		items[i].Value = v
	}
	return items
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Kind reports the recorded type.
func (v Value) Kind() ValueKind { return v.kind }

// Str returns a string value.
func (v Value) Str() (string, bool) { return v.str, v.kind == KindString }

// Int returns an int value.
func (v Value) Int() (int64, bool) { return int64(v.num), v.kind == KindInt }

// Double returns a double value.
func (v Value) Double() (float64, bool) { return math.Float64frombits(v.num), v.kind == KindDouble }

// Bool returns a bool value.
func (v Value) Bool() (bool, bool) { return v.num == 1, v.kind == KindBool }

// Bytes returns the decoded bytes of a bytes value.
func (v Value) Bytes() ([]byte, bool) { return []byte(v.str), v.kind == KindBytes }

// Array returns the elements of an array value.
func (v Value) Array() ([]Value, bool) {
	if v.kind != KindArray {
		return nil, false
	}
	out := make([]Value, len(v.items))
	for i := range v.items {
		out[i] = v.items[i].Value
	}
	return out, true
}

// KVList returns the members of a kvlist value.
func (v Value) KVList() (Attributes, bool) { return v.items, v.kind == KindKVList }

// Equal reports whether two values have the same kind and content. Doubles
// compare by bits, so a recorded NaN equals itself.
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind || v.str != w.str || v.num != w.num || len(v.items) != len(w.items) {
		return false
	}
	for i := range v.items {
		if v.items[i].Key != w.items[i].Key || !v.items[i].Value.Equal(w.items[i].Value) {
			return false
		}
	}
	return true
}

// Get returns the value of the last attribute named key.
func (a Attributes) Get(key string) (Value, bool) {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i].Key == key {
			return a[i].Value, true
		}
	}
	return Value{}, false
}

// String returns the last attribute named key when it is a string.
func (a Attributes) String(key string) (string, bool) {
	v, ok := a.Get(key)
	if !ok {
		return "", false
	}
	return v.Str()
}

// Equal reports whether two attribute sets record the same values. Order
// does not matter; for duplicate keys the last value counts, as in Get.
func (a Attributes) Equal(b Attributes) bool {
	if len(a) != len(b) {
		return false
	}
	same := true
	for i := range a {
		if a[i].Key != b[i].Key || !a[i].Value.Equal(b[i].Value) {
			same = false
			break
		}
	}
	if same {
		return true
	}
	for _, kv := range a {
		w, ok := b.Get(kv.Key)
		if !ok {
			return false
		}
		if v, _ := a.Get(kv.Key); !v.Equal(w) {
			return false
		}
	}
	for _, kv := range b {
		if _, ok := a.Get(kv.Key); !ok {
			return false
		}
	}
	return true
}
