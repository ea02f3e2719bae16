package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/jsonscan"
)

// ArgType is the JSON type of an operation argument.
type ArgType string

// The argument types. The CLI turns flag text into a value of this type;
// the engine checks it.
const (
	Number   ArgType = "number"
	Integer  ArgType = "integer"
	String   ArgType = "string"
	Boolean  ArgType = "boolean"
	Strings  ArgType = "strings"  // a list of strings (CLI: comma-separated)
	Integers ArgType = "integers" // a list of integers (CLI: comma-separated)
)

// Arg declares one argument of an operation: its JSON name, type, help,
// default and bounds. The engine decodes, checks and defaults every
// argument from this declaration; handlers read values already checked.
type Arg struct {
	Name string  `json:"name"`
	Type ArgType `json:"type"`
	Help string  `json:"help"`
	// Default is the value an absent argument takes (nil: none).
	Default any `json:"default,omitempty"`
	// Min and Max bound a number or integer, inclusive.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Enum lists a string's allowed values.
	Enum     []string `json:"enum,omitempty"`
	Required bool     `json:"required,omitempty"`
	// Alias is a second CLI spelling (--request for a request id).
	Alias string `json:"alias,omitempty"`

	// field points into the decoded Args where the value lands.
	field func(*Args) any
}

// Flag is the argument's CLI spelling, without the leading dashes.
func (g *Arg) Flag() string { return strings.ReplaceAll(g.Name, "_", "-") }

func bound(v float64) *float64 { return &v }

// value returns g's value in a, or nil when it is not given (a nil
// pointer, or a zero value of a field without a pointer): a float64 for
// a number, an int64 for an integer, else the value as it is. Every ask
// reads every declared argument this way (prepare); a type switch on
// the field keeps it off reflection, which under wasm cost more than
// the answer of a small question (docs/measurements.md, issue 17).
func (g *Arg) value(a *Args) any {
	switch p := g.field(a).(type) {
	case **float64:
		if *p == nil {
			return nil
		}
		return **p
	case **string:
		if *p == nil {
			return nil
		}
		return **p
	case **int:
		if *p == nil {
			return nil
		}
		return int64(**p)
	case **int64:
		if *p == nil {
			return nil
		}
		return **p
	case *string:
		if *p == "" {
			return nil
		}
		return *p
	case *int:
		if *p == 0 {
			return nil
		}
		return int64(*p)
	case *bool:
		if !*p {
			return nil
		}
		return *p
	case *[]string:
		if *p == nil {
			return nil
		}
		return *p
	case *[]int:
		if *p == nil {
			return nil
		}
		return *p
	}
	panic(g.fieldTypeError())
}

// set stores x (float64, int64, int, string, bool, []string or []int, as
// value gives them and defaults are declared) in g's field, allocating a
// pointer field.
func (g *Arg) set(a *Args, x any) {
	switch p := g.field(a).(type) {
	case **float64:
		*p = new(x.(float64))
	case **string:
		*p = new(x.(string))
	case **int:
		*p = new(int(wholeValue(x)))
	case **int64:
		*p = new(wholeValue(x))
	case *string:
		*p = x.(string)
	case *int:
		*p = int(wholeValue(x))
	case *bool:
		*p = x.(bool)
	case *[]string:
		*p = x.([]string)
	case *[]int:
		*p = x.([]int)
	default:
		panic(g.fieldTypeError())
	}
}

// wholeValue is an integer argument's value, declared as an int or
// decoded as an int64.
func wholeValue(x any) int64 {
	if n, ok := x.(int); ok {
		return int64(n)
	}
	return x.(int64)
}

// fieldTypeError names an argument whose Args field has a type value
// and set do not handle: a declaration error, which
// TestEveryArgFieldIsHandled catches.
func (g *Arg) fieldTypeError() string {
	return fmt.Sprintf("query: argument %s fills an Args field of type %T, which Arg.value and Arg.set do not handle", g.Name, g.field(&Args{}))
}

// check validates a given value against g's bounds and enum.
func (g *Arg) check(x any) *Error {
	switch x := x.(type) {
	case float64:
		if g.Type == Number && (math.IsNaN(x) || math.IsInf(x, 0) || g.Min != nil && x < *g.Min || g.Max != nil && x > *g.Max) {
			return g.rangeError(fmt.Sprint(x))
		}
	case int64:
		// Compared as integers: float64(x) rounds past 2^53.
		if g.Min != nil && x < int64(math.Ceil(*g.Min)) || g.Max != nil && x > int64(math.Floor(*g.Max)) {
			return g.rangeError(fmt.Sprint(x))
		}
	case string:
		if len(g.Enum) > 0 && !contains(g.Enum, x) {
			return badArgs("%s must be one of %s; got %q", g.Name, strings.Join(g.Enum, ", "), x)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rangeError says what g accepts; got is the offending value as given.
func (g *Arg) rangeError(got string) *Error {
	kind := "a finite number"
	if g.Type == Integer || g.Type == Integers {
		kind = "an integer"
	}
	switch {
	case g.Min != nil && g.Max != nil:
		return badArgs("%s must be %s from %s to %s; got %s", g.Name, kind, g.fmtBound(*g.Min), g.fmtBound(*g.Max), got)
	case g.Min != nil:
		return badArgs("%s must be %s >= %s; got %s", g.Name, kind, g.fmtBound(*g.Min), got)
	case g.Max != nil:
		return badArgs("%s must be %s <= %s; got %s", g.Name, kind, g.fmtBound(*g.Max), got)
	}
	return badArgs("%s must be %s; got %s", g.Name, kind, got)
}

func (g *Arg) fmtBound(v float64) string {
	if g.Type == Integer || g.Type == Integers {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// decode reads one JSON value of g into a and checks it. JSON null means
// not given.
func (g *Arg) decode(a *Args, raw json.RawMessage) *Error {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil
	}
	var x any
	switch g.Type {
	case Number:
		f, ok := jsonFloat(raw)
		if !ok {
			return g.rangeError(string(raw))
		}
		x = f
	case Integer:
		n, ok := wholeJSON(raw)
		if !ok {
			return g.rangeError(string(raw))
		}
		x = n
	case String:
		s, ok := jsonString(raw)
		if !ok {
			return badArgs("%s must be a string; got %s", g.Name, raw)
		}
		x = s
	case Boolean:
		switch string(raw) {
		case "true":
			x = true
		case "false":
			x = false
		default:
			return badArgs("%s must be true or false; got %s", g.Name, raw)
		}
	case Strings:
		ss, ok := jsonStrings(raw)
		if !ok {
			return badArgs("%s must be a list of strings; got %s", g.Name, raw)
		}
		x = ss
	case Integers:
		elems, ok := jsonList(raw)
		if !ok {
			return badArgs("%s must be a list of integers; got %s", g.Name, raw)
		}
		out := make([]int, len(elems))
		for k, r := range elems {
			n, ok := wholeJSON(r)
			if !ok || n < math.MinInt32 || n > math.MaxInt32 {
				return badArgs("%s must be a list of integers; got %s", g.Name, raw)
			}
			out[k] = int(n)
		}
		x = out
	}
	if err := g.check(x); err != nil {
		return err
	}
	g.set(a, x)
	return nil
}

// wholeJSON reads a JSON number that is a whole int64 (2.0 is, 2.5 is not).
func wholeJSON(raw []byte) (int64, bool) {
	var n json.Number
	if jsonscan.IsNumber(raw) {
		n = json.Number(raw)
	} else if json.Unmarshal(raw, &n) != nil {
		return 0, false // a quoted number is one too, as encoding/json reads it
	}
	if v, err := n.Int64(); err == nil {
		return v, true
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// decodeArgs reads a JSON object of arguments for op: every name must be
// one op declares. what names the question in messages ("query").
func (op *Op) decodeArgs(raw map[string]json.RawMessage, what string) (Args, *Error) {
	var a Args
	for name := range raw {
		if op.arg(name) == nil {
			return a, op.unknownArg(name, what)
		}
	}
	// In declaration order, so the first bad argument reported is stable.
	for k := range op.Args {
		g := &op.Args[k]
		if r, ok := raw[g.Name]; ok {
			if err := g.decode(&a, r); err != nil {
				return a, err
			}
		}
	}
	return a, nil
}

// prepare checks a decoded Args against op: no argument op does not
// declare is set, every given one is within bounds, the required ones are
// there; then it fills the defaults.
func (op *Op) prepare(a Args) (Args, *Error) {
	for k := range allArgs {
		g := &allArgs[k]
		if op.arg(g.Name) == nil && g.value(&a) != nil {
			return a, op.unknownArg(g.Name, "query")
		}
	}
	for k := range op.Args {
		g := &op.Args[k]
		x := g.value(&a)
		if x == nil {
			if g.Required {
				return a, badArgs("%s needs %s (%s)", op.Name, g.Name, g.Help)
			}
			if g.Default != nil {
				g.set(&a, g.Default)
			}
			continue
		}
		if err := g.check(x); err != nil {
			return a, err
		}
	}
	return a, nil
}

func (op *Op) arg(name string) *Arg {
	for k := range op.Args {
		if op.Args[k].Name == name {
			return &op.Args[k]
		}
	}
	return nil
}

func (op *Op) unknownArg(name, what string) *Error {
	takes := make([]string, len(op.Args))
	for k, g := range op.Args {
		takes[k] = g.Name
	}
	list := "none"
	if len(takes) > 0 {
		list = strings.Join(takes, ", ")
	}
	return badArgs("bad %s: %s takes no argument %q (it takes %s)", what, op.Name, name, list)
}
