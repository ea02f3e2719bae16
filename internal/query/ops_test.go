package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// failed is a failure envelope.
type failed struct {
	OK     bool        `json:"ok"`
	Code   Code        `json:"code"`
	Error  string      `json:"error"`
	Shards []ShardNeed `json:"shards"`
}

func fail(t *testing.T, e *Engine, q string) failed {
	t.Helper()
	var f failed
	if err := json.Unmarshal(e.Handle([]byte(q)), &f); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if f.OK {
		t.Fatalf("%s: answered, want a failure", q)
	}
	return f
}

// sample is a valid-looking value of g for a question that must be
// refused for another reason.
func sample(g *Arg) (json.RawMessage, any) {
	switch g.Type {
	case Number:
		return json.RawMessage("1"), 1.0
	case Integer:
		return json.RawMessage("1"), int64(1)
	case Boolean:
		return json.RawMessage("true"), true
	case Strings:
		return json.RawMessage(`["a"]`), []string{"a"}
	case Integers:
		return json.RawMessage(`[0]`), []int{0}
	}
	return json.RawMessage(`"start"`), "start"
}

// Table: every op is described, every argument is declared with a type,
// help and a field, and its default passes its own bounds.
func TestOpTableIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, op := range Table() {
		if op.Help == "" || seen[op.Name] {
			t.Errorf("%q: no description, or declared twice", op.Name)
		}
		seen[op.Name] = true
		if (op.run == nil) == (op.appendTo == nil) || op.Binary != (op.appendTo != nil) {
			t.Errorf("%s: needs exactly one handler, binary iff it appends bytes", op.Name)
		}
		for k := range op.Args {
			g := &op.Args[k]
			if g.Help == "" || g.Type == "" || g.field == nil {
				t.Errorf("%s.%s: help, type or field missing", op.Name, g.Name)
			}
			if g.Default != nil {
				var a Args
				g.set(&a, g.Default)
				if err := g.check(g.value(&a)); err != nil {
					t.Errorf("%s.%s: default %v out of its bounds: %v", op.Name, g.Name, g.Default, err)
				}
			}
		}
	}
	for _, want := range []string{"timeline", "overview", "metric_plan", "plot", "default_request", "default_metric", "metric_cache", "ops"} {
		if op := Lookup(want); op == nil || !op.Internal {
			t.Errorf("%s is not an internal op", want)
		}
	}
}

// Misapplied arguments are refused with bad_args, through Handle (as JSON)
// and through Do (as a set field) with the same message; never ignored.
func TestMisappliedArgsAreBadArgs(t *testing.T) {
	e := engine(t)
	cases := 0
	for _, op := range Table() {
		for k := range allArgs {
			g := &allArgs[k]
			if op.arg(g.Name) != nil {
				continue
			}
			raw, val := sample(g)
			q, _ := json.Marshal(map[string]any{"op": op.Name, "args": map[string]json.RawMessage{g.Name: raw}})
			f := fail(t, e, string(q))
			want := fmt.Sprintf("%s takes no argument %q", op.Name, g.Name)
			if f.Code != CodeBadArgs || !strings.Contains(f.Error, want) {
				t.Errorf("%s: %+v, want bad_args %q", q, f, want)
			}
			if op.Binary {
				continue
			}
			var a Args
			g.set(&a, val)
			_, err := e.Do(Request{Op: op.Name, Args: a})
			if CodeOf(err) != CodeBadArgs || err.Error() != f.Error {
				t.Errorf("Do %s with %s: %v, want %q", op.Name, g.Name, err, f.Error)
			}
			cases++
		}
	}
	if cases < 100 {
		t.Fatalf("only %d cases", cases)
	}
	for q, want := range map[string]string{
		`{"op":"requests","args":{"sort":"ttft"}}`: `requests takes no argument "sort"`,
		`{"op":"summary","args":{"name":"x"}}`:     `summary takes no argument "name"`,
		`{"op":"requests","args":{"frm":1}}`:       `requests takes no argument "frm"`,
		`{"op":"requests","args":{"limit":5000}}`:  "limit must be an integer from 0 to 1000; got 5000",
		`{"op":"bogus"}`:                           "unknown query kind",
		`{"op":"request"}`:                         "request needs id",
		`{"op":"source","args":{"id":"x"}}`:        "source id must be an integer",
	} {
		if f := fail(t, e, q); f.Code != CodeBadArgs || !strings.Contains(f.Error, want) {
			t.Errorf("%s: %+v, want bad_args %q", q, f, want)
		}
	}
}

func TestErrorCodes(t *testing.T) {
	e := engine(t)
	for _, q := range []string{`{"op":"request","args":{"id":"nope"}}`, `{"op":"lifecycle","args":{"id":"nope"}}`} {
		if f := fail(t, e, q); f.Code != CodeNotFound || !strings.Contains(f.Error, "Unknown request") {
			t.Errorf("%s: %+v, want not_found", q, f)
		}
	}
	// A metrics question without its shards names them, as a plot does.
	m, payloads := metricEngine(t)
	f := fail(t, m, `{"op":"metrics","args":{"name":"g"}}`)
	if f.Code != CodeShardsNeeded || len(f.Shards) != 1 || f.Shards[0].ID != "gauge" || len(f.Shards[0].Series) != 1 {
		t.Fatalf("metrics without shards: %+v", f)
	}
	f = fail(t, m, `{"op":"plot","args":{"pixels":10,"series":[0,1]}}`)
	if f.Code != CodeShardsNeeded || len(f.Shards) != 2 {
		t.Fatalf("plot without shards: %+v", f)
	}
	_, err := m.Do(Request{Op: "metrics", Args: Args{}})
	var qe *Error
	if !errors.As(err, &qe) || qe.Code != CodeShardsNeeded || len(qe.Shards) != 2 {
		t.Fatalf("Do metrics: %v", err)
	}
	for id, raw := range payloads {
		if err := m.Give(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	if f := fail(t, m, `{"op":"plot","args":{"pixels":10,"series":[9]}}`); f.Code != CodeNotFound {
		t.Fatalf("plot of an unknown series: %+v", f)
	}
	if out, binary := m.AppendAnswer(nil, []byte(`{"op":"plot","args":{"pixels":10,"series":[0]}}`)); !binary || len(out)%8 != 0 {
		t.Fatalf("plot answers %d bytes, binary %v", len(out), binary)
	}
	if err := m.Give("nope", payloads["gauge"]); CodeOf(err) != CodeNotFound {
		t.Fatalf("an unknown shard: %v", err)
	}
	// Before the evidence is handed over, a traced request's lifecycle is
	// pending, not absent.
	d := serverFixture()
	p := withoutEvidence(t, d)
	if f := fail(t, p, `{"op":"lifecycle","args":{"id":"parent-turn"}}`); f.Code != CodeEvidencePending {
		t.Fatalf("lifecycle before the evidence: %+v", f)
	}
}

// The page reads the table through "ops" for its bounds.
func TestOpsAnswersTheTable(t *testing.T) {
	res, msg := askMetric(t, engine(t), "ops", Args{})
	if msg != "" {
		t.Fatal(msg)
	}
	var ops []struct {
		Name string
		Args []struct {
			Name     string
			Min, Max *float64
			Default  any
		}
	}
	if err := json.Unmarshal(res, &ops); err != nil || len(ops) != len(Table()) {
		t.Fatalf("%v: %s", err, res)
	}
	for _, op := range ops {
		for _, a := range op.Args {
			if op.Name == "requests" && a.Name == "limit" && (*a.Min != 0 || *a.Max != MaxLimit || a.Default != 100.0) {
				t.Fatalf("requests.limit: %+v", a)
			}
		}
	}
}
