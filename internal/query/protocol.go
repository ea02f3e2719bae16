package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

// Request is one question: an operation name and its arguments.
type Request struct {
	Op   string `json:"op"`
	Args Args   `json:"args"`
}

// Args carries every filter any operation understands; each operation reads
// the ones it documents. Pointers distinguish "not given" from zero.
type Args struct {
	From      *float64     `json:"from,omitempty"`
	To        *float64     `json:"to,omitempty"`
	ID        string       `json:"id,omitempty"`
	Session   *string      `json:"session,omitempty"`
	Agent     *string      `json:"agent,omitempty"`
	Worker    *string      `json:"worker,omitempty"`
	MinTTFTms *float64     `json:"min_ttft_ms,omitempty"`
	Search    string       `json:"search,omitempty"`
	Sort      string       `json:"sort,omitempty"`
	Offset    *json.Number `json:"offset,omitempty"`
	Limit     *json.Number `json:"limit,omitempty"`
	Bins      int          `json:"bins,omitempty"`
	// Pixels, with metric points, asks for a plot of that width: the exact
	// rows when few, else each bucket's recorded min and max samples.
	Pixels int `json:"pixels,omitempty"`
	// Metric filters: exact name, host, GPU and rank (compared as strings)
	// and whether "metrics" returns points.
	Name   *string `json:"name,omitempty"`
	Host   *string `json:"host,omitempty"`
	GPU    *string `json:"gpu,omitempty"`
	Rank   *string `json:"rank,omitempty"`
	Points bool    `json:"points,omitempty"`
	// Expanded lists the session ids whose agents the timeline should detail.
	Expanded []string `json:"expanded,omitempty"`
}

// MaxLimit bounds every list answer.
const MaxLimit = 1000

// Ops lists the operations Handle understands, in documentation order.
var Ops = []string{"summary", "requests", "request", "lifecycle", "server_spans", "sessions", "timeline", "overview", "sources", "source", "default_request", "default_metric", "metric_families", "metric_series", "metric_plan", "metrics"}

// Handle answers one JSON-encoded Request with a JSON envelope. It never
// panics on bad input: every failure becomes {"ok": false, "error": …}.
func (e *Engine) Handle(req []byte) []byte {
	var r Request
	dec := json.NewDecoder(bytes.NewReader(req))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return failure(fmt.Errorf("bad query: %w", err))
	}
	result, err := e.Do(r)
	if err != nil {
		return failure(err)
	}
	out, err := json.Marshal(envelope{OK: true, Result: result})
	if err != nil {
		return failure(err)
	}
	return out
}

// Do answers a decoded Request with a value ready for JSON encoding.
func (e *Engine) Do(r Request) (any, error) {
	switch r.Op {
	case "summary":
		return e.Summary(), nil
	case "requests":
		return e.Requests(r.Args)
	case "request":
		return e.Request(r.Args.ID)
	case "lifecycle":
		return e.Lifecycle(r.Args.ID)
	case "server_spans":
		return e.ServerSpans(r.Args)
	case "sessions":
		return e.Sessions(r.Args)
	case "timeline":
		return e.Timeline(r.Args)
	case "overview":
		return e.Overview(r.Args.Bins)
	case "sources":
		return e.Sources(r.Args)
	case "source":
		return e.Source(r.Args.ID)
	case "default_request":
		return e.DefaultRequest(), nil
	case "default_metric":
		return e.DefaultMetric(), nil
	case "metric_families":
		return e.MetricFamilies(), nil
	case "metric_series":
		return e.MetricSeries(r.Args)
	case "metric_plan":
		return e.MetricPlan(r.Args)
	case "metrics":
		return e.Metrics(r.Args)
	}
	known := append([]string(nil), Ops...)
	sort.Strings(known)
	return nil, fmt.Errorf("unknown query kind %q (known: %v)", r.Op, known)
}

type envelope struct {
	OK     bool   `json:"ok"`
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

func failure(err error) []byte {
	out, _ := json.Marshal(envelope{Error: err.Error()})
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
		return w, fmt.Errorf("Range must satisfy 0 ≤ from < to ≤ duration (%.9g s); got from=%v to=%v", e.durationS, w.from, w.to)
	}
	w.fromNS = int64(math.Round(w.from * 1e9))
	w.toNS = int64(math.Round(w.to * 1e9))
	return w, nil
}

func page(a Args, defaultLimit int) (offset, limit int, err error) {
	offset, limit = 0, defaultLimit
	if a.Offset != nil {
		if offset, err = wholeNumber("offset", *a.Offset, math.MaxInt32); err != nil {
			return
		}
	}
	if a.Limit != nil {
		if limit, err = wholeNumber("limit", *a.Limit, MaxLimit); err != nil {
			return
		}
	}
	return
}

func wholeNumber(name string, n json.Number, most int64) (int, error) {
	v, err := n.Int64()
	if err != nil || v < 0 || v > most {
		return 0, fmt.Errorf("%s must be an integer from 0 to %d; got %s", name, most, n.String())
	}
	return int(v), nil
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
func ErrorEnvelope(msg string) []byte { return failure(errors.New(msg)) }
