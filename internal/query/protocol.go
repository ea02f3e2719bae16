package query

import (
	"encoding/json"
	"math"
	"sort"
)

// Request is one question: an operation name and its arguments.
type Request struct {
	Op   string `json:"op"`
	Args Args   `json:"args"`
}

// Args is the decoded value of every argument any operation declares (see
// ops.go); each operation takes the ones its table entry lists and refuses
// the others. Pointers distinguish "not given" from zero. The engine fills
// the defaults before a handler reads it.
type Args struct {
	From      *float64 `json:"from,omitempty"`
	To        *float64 `json:"to,omitempty"`
	ID        string   `json:"id,omitempty"`
	Session   *string  `json:"session,omitempty"`
	Agent     *string  `json:"agent,omitempty"`
	Worker    *string  `json:"worker,omitempty"`
	MinTTFTms *float64 `json:"min_ttft_ms,omitempty"`
	Search    string   `json:"search,omitempty"`
	Sort      string   `json:"sort,omitempty"`
	Offset    *int     `json:"offset,omitempty"`
	Limit     *int     `json:"limit,omitempty"`
	Bins      int      `json:"bins,omitempty"`
	// Pixels, with metric points, asks for a plot of that width: the exact
	// rows when few, else each bucket's recorded min and max samples.
	Pixels int `json:"pixels,omitempty"`
	// Metric filters: exact name, host, GPU and rank (compared as strings)
	// and whether "metrics" returns points.
	Name *string `json:"name,omitempty"`
	Host *string `json:"host,omitempty"`
	GPU  *string `json:"gpu,omitempty"`
	Rank *string `json:"rank,omitempty"`
	// Role keeps the workers of one role (prefill, decode, agg, frontend).
	Role   *string `json:"role,omitempty"`
	Points bool    `json:"points,omitempty"`
	// Expanded lists the session ids whose agents the timeline should detail.
	Expanded []string `json:"expanded,omitempty"`
	// FocusPage asks the timeline for the page holding ID's session.
	FocusPage bool `json:"focus_page,omitempty"`
	// Series lists the metric series a plot draws.
	Series []int `json:"series,omitempty"`
	// IDs lists the metric series range statistics cover; an empty list
	// none.
	IDs []int `json:"ids,omitempty"`
	// MaxBytes and MaxPoints set the metric cache budget.
	MaxBytes  *int64 `json:"max_bytes,omitempty"`
	MaxPoints *int64 `json:"max_points,omitempty"`
	// Profile is an Nsight profile id.
	Profile *int `json:"profile,omitempty"`
}

// wire is a Request as it crosses the JS↔Go boundary or comes from the
// CLI: the arguments stay raw until the operation's table entry reads them.
type wire struct {
	Op   string                     `json:"op"`
	Args map[string]json.RawMessage `json:"args"`
}

// Handle answers one JSON-encoded Request with a JSON envelope. It never
// panics on bad input: every failure becomes {"ok": false, "code": …,
// "error": …} (see Error). A binary operation's answer is base64 in
// "result"; AppendAnswer gives its bytes.
func (e *Engine) Handle(req []byte) []byte {
	out, binary := e.AppendAnswer(nil, req)
	if binary {
		env, err := json.Marshal(envelope{OK: true, Result: out})
		if err != nil {
			return failure(err)
		}
		return env
	}
	return out
}

// AppendAnswer answers one JSON-encoded Request. A binary operation's
// answer is appended to dst and binary is true; any other answer, and
// every failure, is a JSON envelope as Handle returns (appended to dst
// when the answer writes itself, see requestsjson.go). Reusing dst spares
// a caller that copies each answer out (the wasm adapter) a fresh buffer
// per zoom.
func (e *Engine) AppendAnswer(dst, req []byte) (out []byte, binary bool) {
	w, werr := decodeWire(req)
	if werr != nil {
		return failure(badArgs("bad query: %v", werr)), false
	}
	op, err := lookup(w.Op)
	if err != nil {
		return failure(err), false
	}
	a, err := op.decodeArgs(w.Args, "query")
	if err != nil {
		return failure(err), false
	}
	if op.Binary {
		return e.appendBinary(op, dst, a)
	}
	result, runErr := e.do(op, a)
	if runErr != nil {
		return failure(runErr), false
	}
	if w, ok := result.(jsonAppender); ok {
		if out, ok := appendEnvelope(dst, w); ok {
			return out, false
		}
		result = w.fallback()
	}
	b, merr := json.Marshal(envelope{OK: true, Result: result})
	if merr != nil {
		return failure(merr), false
	}
	return b, false
}

func (e *Engine) appendBinary(op *Op, dst []byte, a Args) ([]byte, bool) {
	a, err := op.prepare(a)
	if err != nil {
		return failure(err), false
	}
	out, runErr := op.appendTo(e, dst, a)
	if runErr != nil {
		return failure(runErr), false
	}
	return out, true
}

func lookup(name string) (*Op, *Error) {
	if op := Lookup(name); op != nil {
		return op, nil
	}
	known := Names(false)
	sort.Strings(known)
	return nil, badArgs("unknown query kind %q (known: %v)", name, known)
}

// Do answers a decoded Request with a value ready for JSON encoding. An
// argument the operation does not take is refused, as Handle refuses it.
// Every error it returns is an *Error.
func (e *Engine) Do(r Request) (any, error) {
	op, err := lookup(r.Op)
	if err != nil {
		return nil, err
	}
	if op.Binary {
		return nil, badArgs("%s answers in bytes: ask it through Handle or AppendAnswer", op.Name)
	}
	return e.do(op, r.Args)
}

func (e *Engine) do(op *Op, a Args) (any, error) {
	a, err := op.prepare(a)
	if err != nil {
		return nil, err
	}
	if err := e.checkReport(op, a); err != nil {
		return nil, err
	}
	result, runErr := op.run(e, a)
	if runErr != nil {
		return nil, asError(runErr)
	}
	return result, nil
}

type envelope struct {
	OK     bool `json:"ok"`
	Result any  `json:"result,omitempty"`
}

// failureEnvelope is every failure's answer: the message stays in "error"
// (a string, as readers of the first protocol expect) beside its code.
type failureEnvelope struct {
	OK     bool        `json:"ok"`
	Code   Code        `json:"code"`
	Error  string      `json:"error"`
	Shards []ShardNeed `json:"shards,omitempty"`
}

func failure(err error) []byte {
	qe := asError(err)
	out, _ := json.Marshal(failureEnvelope{Code: qe.Code, Error: qe.Message, Shards: qe.Shards})
	return out
}

// window is a validated time range in seconds and relative nanoseconds.
type window struct {
	from, to     float64
	fromNS, toNS int64
}

func (w window) json() [2]float64 { return [2]float64{w.from, w.to} }

// rangeSlack forgives the rounding of a duration printed in seconds.
const rangeSlack = 1e-6

func (e *Engine) window(a Args) (window, error) {
	w := window{from: 0, to: e.durationS}
	if a.From != nil {
		w.from = *a.From
	}
	if a.To != nil {
		w.to = *a.To
	}
	if math.IsNaN(w.from) || math.IsNaN(w.to) || math.IsInf(w.from, 0) || math.IsInf(w.to, 0) ||
		w.from < 0 || w.from >= w.to || w.to > e.durationS+rangeSlack {
		return w, badArgs("Range must satisfy 0 ≤ from < to ≤ duration (%.9g s); got from=%v to=%v", e.durationS, w.from, w.to)
	}
	w.fromNS = int64(math.Round(w.from * 1e9))
	w.toNS = int64(math.Round(w.to * 1e9))
	return w, nil
}

// page returns the offset and limit of a list answer, which the op table
// has checked and defaulted.
func page(a Args) (offset, limit int) {
	if a.Offset != nil {
		offset = *a.Offset
	}
	if a.Limit != nil {
		limit = *a.Limit
	}
	return offset, limit
}

// list is the shape of every paginated answer.
type list[T any] struct {
	Total  int        `json:"total"`
	Offset int        `json:"offset"`
	Limit  int        `json:"limit"`
	Range  [2]float64 `json:"range"`
	Items  []T        `json:"items"`
}

// ErrorEnvelope is the answer for a failure that happens before a question
// reaches the engine (for example while loading data).
func ErrorEnvelope(code Code, msg string) []byte {
	return failure(&Error{Code: code, Message: msg})
}

// Failure is the envelope of err, with its code (CodeInternal when err is
// not an *Error).
func Failure(err error) []byte { return failure(err) }
