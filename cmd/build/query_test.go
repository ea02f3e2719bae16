package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
)

func queryEngine(t *testing.T) *query.Engine {
	t.Helper()
	const s = int64(1_000_000_000)
	ttft := 100.0
	first := 2 * s
	e, err := query.FromDataset(&model.Dataset{
		Meta:     model.Meta{Job: "j", OriginNS: 1789642711000000000, DurationNS: 10 * s, Phase: "profiling", ClientKind: "aiperf"},
		Sources:  []model.Source{{ID: 0, Path: "logs/profile_export.jsonl", Kind: "client", Bytes: 10, SHA256: "ff"}},
		Requests: []model.Request{{ID: "r1", Session: "a", Agent: "a", StartNS: s, EndNS: 3 * s, FirstNS: &first, TTFTms: &ttft, Status: "completed", Evidence: model.Ref{Line: 1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// envelope is a failure as both surfaces report it.
type envelope struct {
	OK    bool       `json:"ok"`
	Code  query.Code `json:"code"`
	Error string     `json:"error"`
}

func answer(t *testing.T, e *query.Engine, body []byte) envelope {
	t.Helper()
	var env envelope
	if err := json.Unmarshal(e.Handle(body), &env); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return env
}

// viaCLI asks as `dsight query REPORT op argv…` does.
func viaCLI(t *testing.T, e *query.Engine, op string, argv ...string) envelope {
	t.Helper()
	_, req, err := queryRequest(append([]string{"REPORT", op}, argv...), nil)
	if err != nil {
		return envelope{Code: query.CodeOf(err), Error: err.Error()}
	}
	body, _ := json.Marshal(req)
	return answer(t, e, body)
}

// viaJSON asks Engine.Handle with the arguments given as JSON text.
func viaJSON(t *testing.T, e *query.Engine, op string, args map[string]string) envelope {
	t.Helper()
	raw := map[string]json.RawMessage{}
	for k, v := range args {
		raw[k] = json.RawMessage(v)
	}
	body, _ := json.Marshal(map[string]any{"op": op, "args": raw})
	return answer(t, e, body)
}

// badValues lists, for an argument, flag texts it refuses and the JSON
// that says the same.
func badValues(g query.Arg) [][2]string {
	var out [][2]string
	q := strconv.Quote
	switch g.Type {
	case query.Number:
		out = append(out, [2]string{"abc", q("abc")})
	case query.Integer:
		out = append(out, [2]string{"abc", q("abc")}, [2]string{"2.5", "2.5"})
	case query.Boolean:
		out = append(out, [2]string{"maybe", q("maybe")})
	case query.Integers:
		out = append(out, [2]string{"a,1", `["a",1]`}, [2]string{"1.5", `[1.5]`})
	case query.String:
		if len(g.Enum) > 0 {
			out = append(out, [2]string{"nope", q("nope")})
		}
	}
	if g.Min != nil {
		v := strconv.FormatFloat(*g.Min-1, 'f', -1, 64)
		out = append(out, [2]string{v, v})
	}
	if g.Max != nil {
		v := strconv.FormatFloat(*g.Max+1, 'f', -1, 64)
		if g.Type == query.Integer {
			v = strconv.FormatInt(int64(*g.Max)+1, 10) // exact past 2^53
		}
		out = append(out, [2]string{v, v})
	}
	return out
}

// Every argument of every operation is refused the same way, with the same
// code and message, whether it comes as a CLI flag or as JSON through
// Engine.Handle; so is every argument an operation does not take.
func TestQueryCLIValidatesAsHandle(t *testing.T) {
	e := queryEngine(t)
	flags := queryFlags()
	checked := 0
	same := func(what string, cli, js envelope) {
		t.Helper()
		checked++
		if cli.OK || cli.Code != query.CodeBadArgs || cli != js {
			t.Errorf("%s:\n  CLI:    %+v\n  Handle: %+v", what, cli, js)
		}
	}
	for _, op := range query.Table() {
		if op.Help == "" {
			t.Errorf("%s has no description", op.Name)
		}
		for _, g := range op.Args {
			if g.Help == "" || g.Type == "" {
				t.Errorf("%s: argument %s has no help or type", op.Name, g.Name)
			}
			for _, bad := range badValues(g) {
				for _, flag := range []string{g.Flag(), g.Alias} {
					if flag == "" {
						continue
					}
					same(fmt.Sprintf("%s --%s=%s", op.Name, flag, bad[0]),
						viaCLI(t, e, op.Name, "--"+flag+"="+bad[0]),
						viaJSON(t, e, op.Name, map[string]string{g.Name: bad[1]}))
				}
			}
			if g.Required {
				same(op.Name+" without "+g.Name, viaCLI(t, e, op.Name), viaJSON(t, e, op.Name, nil))
			}
		}
		// Misapplied: every flag of another operation.
		for _, f := range flags {
			name := strings.ReplaceAll(f.name, "-", "_")
			takes := false
			for _, g := range op.Args {
				takes = takes || g.Flag() == f.name || g.Alias == f.name
			}
			if takes {
				continue
			}
			text, js := "1", "1"
			switch f.typ {
			case query.String:
				js = `"1"`
			case query.Strings:
				js = `["1"]`
			case query.Integers:
				js = `[1]`
			case query.Boolean:
				text, js = "true", "true"
			}
			same(fmt.Sprintf("%s --%s", op.Name, f.name), viaCLI(t, e, op.Name, "--"+f.name+"="+text), viaJSON(t, e, op.Name, map[string]string{name: js}))
		}
	}
	if checked < 100 {
		t.Fatalf("only %d cases checked", checked)
	}
	// The examples of the issue, spelled out.
	for _, c := range []struct {
		op   string
		argv []string
		want string
	}{
		{"requests", []string{"--sort", "ttft"}, `requests takes no argument "sort"`},
		{"summary", []string{"--name", "x"}, `summary takes no argument "name"`},
		{"source", []string{"--request", "r1"}, `source takes no argument "request"`},
	} {
		got := viaCLI(t, e, c.op, c.argv...)
		if got.Code != query.CodeBadArgs || !strings.Contains(got.Error, c.want) {
			t.Errorf("%s %v: %+v, want bad_args %q", c.op, c.argv, got, c.want)
		}
	}
}

// A good question asks the same through both paths, --request and --id
// alike.
func TestQueryCLIAsksAsHandle(t *testing.T) {
	e := queryEngine(t)
	for _, c := range []struct {
		op   string
		argv []string
		json map[string]string
	}{
		{"request", []string{"--request", "r1"}, map[string]string{"id": `"r1"`}},
		{"request", []string{"--id", "r1"}, map[string]string{"id": `"r1"`}},
		{"requests", []string{"--from", "0.5", "--limit", "1", "--min-ttft-ms", "50"}, map[string]string{"from": "0.5", "limit": "1", "min_ttft_ms": "50"}},
		{"timeline", []string{"--expanded", "a", "--sort", "ttft"}, map[string]string{"expanded": `["a"]`, "sort": `"ttft"`}},
		{"metrics", []string{"--points"}, map[string]string{"points": "true"}},
	} {
		_, req, err := queryRequest(append([]string{"REPORT", c.op}, c.argv...), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(req)
		raw := map[string]json.RawMessage{}
		for k, v := range c.json {
			raw[k] = json.RawMessage(v)
		}
		want, _ := json.Marshal(map[string]any{"op": c.op, "args": raw})
		if got := e.Handle(body); string(got) != string(e.Handle(want)) {
			t.Errorf("%s %v: %s, want %s", c.op, c.argv, got, e.Handle(want))
		}
	}
}

// --help lists the public kinds and their flags, not the internal ones.
func TestQueryHelpFollowsTable(t *testing.T) {
	var help strings.Builder
	if _, _, err := queryRequest([]string{"--help"}, &help); err == nil {
		t.Fatal("--help returned no ErrHelp")
	}
	text := help.String()
	for _, op := range query.Table() {
		listed := strings.Contains(text, "\n  "+op.Name+" ")
		if listed == op.Internal {
			t.Errorf("%s (internal %v) listed %v in help", op.Name, op.Internal, listed)
		}
	}
	for _, hidden := range []string{"--bins", "--expanded", "--series", "--max-bytes"} {
		if strings.Contains(text, hidden) {
			t.Errorf("help shows %s, which only internal kinds take", hidden)
		}
	}
	for _, shown := range []string{"--limit N", "--request TEXT", "--points", "0 to 1000; default 100"} {
		if !strings.Contains(text, shown) {
			t.Errorf("help lacks %q:\n%s", shown, text)
		}
	}
}

// Through the command: a misapplied flag fails with exit 1 and the
// engine's code on stderr; a usage error still exits 2.
func TestQueryBadArgsExit(t *testing.T) {
	needAssets(t)
	out := t.TempDir() + "/report"
	if code, _, stderr := dsight(t, "build", genRun(t), "-o", out); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	code, _, stderr := dsight(t, "query", out, "requests", "--sort", "ttft")
	var env envelope
	if err := json.Unmarshal([]byte(stderr), &env); err != nil || code != 1 || env.Code != query.CodeBadArgs || !strings.Contains(env.Error, `requests takes no argument "sort"`) {
		t.Fatalf("exit %d, %v: %s", code, err, stderr)
	}
	if code, _, stderr = dsight(t, "query", out, "request", "--request", "nope"); code != 1 || !strings.Contains(stderr, `"code":"not_found"`) {
		t.Fatalf("unknown request: exit %d: %s", code, stderr)
	}
	if code, _, _ = dsight(t, "query", out, "requests", "extra"); code != 2 {
		t.Fatalf("usage: exit %d", code)
	}
}
