package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// The query command knows no operation: its kinds, flags and help come
// from internal/query's op table, and it only turns flag text into JSON
// values. The engine checks every argument, so a bad one fails here
// exactly as it fails through Engine.Handle (the page's path).

func queryCmd(args []string, stdout io.Writer) error {
	path, req, err := queryRequest(args, nil)
	if errors.Is(err, flag.ErrHelp) {
		writeQueryHelp(stdout, queryFlags())
		return err
	}
	if err != nil {
		return err
	}
	if op := query.Lookup(req.Op); op != nil && op.Internal && !req.internal {
		return refuseInternal(op)
	}
	if req.cpuProfile != "" {
		stop, err := startCPUProfile(req.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	defer collectOnlyPastLimit()()
	rep, reader, err := openReading(path, req)
	if err != nil {
		return err
	}
	e, err := query.New(rep.Core)
	if err != nil {
		return err
	}
	pagesFromReader(e, reader, req)
	adviseForMetrics(e, rep.Core, reader, req)
	result, err := askLazy(e, rep, req)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	// Indent's output is a little longer than its input: one buffer.
	b.Grow(len(result) + len(result)/2 + 1)
	if err := json.Indent(&b, result, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err = stdout.Write(escapeBidi(b.Bytes()))
	return err
}

// escapeBidi writes Unicode bidirectional controls (U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069) in JSON output as \u escapes: written raw,
// an input string holding them reorders what a terminal shows. They occur
// only inside JSON strings, where the escape means the same character.
func escapeBidi(b []byte) []byte {
	if !bytes.Contains(b, []byte{0xe2, 0x80}) && !bytes.Contains(b, []byte{0xe2, 0x81}) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			out = fmt.Appendf(out, "\\u%04x", r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// wireRequest is a question as the engine reads it: raw JSON arguments.
// internal is --internal: the command answers a page-internal kind only
// when asked so (the page's own tests compare those answers).
type wireRequest struct {
	Op       string                     `json:"op"`
	Args     map[string]json.RawMessage `json:"args"`
	internal bool
	// cpuProfile is the hidden --cpuprofile: where to write a CPU profile
	// of the open and the answer (for slow-query reports).
	cpuProfile string
}

// queryRequest parses `REPORT [KIND] [flags]` into the report path and the
// question. A flag the kind does not take is passed on under its argument
// name, for the engine to refuse. usage, when not nil, receives the help.
func queryRequest(args []string, usage io.Writer) (string, wireRequest, error) {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if usage != nil {
		fs.SetOutput(usage)
	}
	// --json only chooses how a failure is written (see run); the answer
	// is JSON either way.
	fs.Bool("json", false, "write a failure as a JSON record even on a terminal")
	internal := fs.Bool("internal", false, "also answer the page's internal kinds")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the question to this file")
	flags := queryFlags()
	for _, f := range flags {
		fs.Var(f, f.name, f.help)
	}
	fs.Usage = func() { writeQueryHelp(fs.Output(), flags) }
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", wireRequest{}, err
		}
		// An unknown flag or one without its value is bad usage (exit 2);
		// a known flag the kind does not take goes on to the engine.
		return "", wireRequest{}, fmt.Errorf("%w: %v (run \"dsight query --help\")", errUsage, err)
	}
	if len(pos) < 1 || len(pos) > 2 {
		return "", wireRequest{}, fmt.Errorf("%w: dsight query REPORT [KIND] [flags]", errUsage)
	}
	req := wireRequest{Op: "summary", Args: map[string]json.RawMessage{}, internal: *internal, cpuProfile: *cpuProfile}
	if len(pos) == 2 {
		req.Op = pos[1]
	}
	op := query.Lookup(req.Op)
	fs.Visit(func(fl *flag.Flag) {
		f, ok := fl.Value.(*queryFlag)
		if !ok {
			return
		}
		name, typ := strings.ReplaceAll(f.name, "-", "_"), f.typ
		if op != nil {
			for _, g := range op.Args {
				if g.Flag() == f.name || g.Alias == f.name {
					name, typ = g.Name, g.Type
				}
			}
		}
		req.Args[name] = flagJSON(typ, f.text)
	})
	return pos[0], req, nil
}

// jsonNumber compiles on first use: most commands never parse a number flag.
var jsonNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
})

// flagJSON turns flag text into the JSON value of an argument of type t.
// Text that is not of that type is passed on as a string, which the
// engine refuses with the message it gives for the same JSON.
func flagJSON(t query.ArgType, text string) json.RawMessage {
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	num := func(s string) json.RawMessage {
		if jsonNumber().MatchString(s) {
			return json.RawMessage(s)
		}
		return str(s)
	}
	list := func(item func(string) json.RawMessage) json.RawMessage {
		items := []json.RawMessage{}
		if text != "" {
			for _, s := range strings.Split(text, ",") {
				items = append(items, item(s))
			}
		}
		b, _ := json.Marshal(items)
		return b
	}
	switch t {
	case query.Number, query.Integer:
		return num(text)
	case query.Boolean:
		if b, err := strconv.ParseBool(text); err == nil {
			return json.RawMessage(strconv.FormatBool(b))
		}
	case query.Strings:
		return list(str)
	case query.Integers:
		return list(num)
	}
	return str(text)
}

// queryFlag is one CLI flag: every argument spelled so in the op table.
// It records the text given; the engine reads its value.
type queryFlag struct {
	name, help string
	typ        query.ArgType
	text       string
	public     []string // the public kinds that take it
}

func (f *queryFlag) String() string     { return f.text }
func (f *queryFlag) Set(s string) error { f.text = s; return nil }
func (f *queryFlag) IsBoolFlag() bool   { return f.typ == query.Boolean }

// queryFlags lists, by name, the flags of every operation's arguments.
func queryFlags() []*queryFlag {
	byName := map[string]*queryFlag{}
	var out []*queryFlag
	add := func(name string, op *query.Op, g query.Arg) {
		f := byName[name]
		if f == nil {
			f = &queryFlag{name: name, typ: g.Type}
			byName[name] = f
			out = append(out, f)
		}
		if op.Internal {
			return
		}
		if f.help == "" {
			f.help = describeArg(g)
		} else if h := describeArg(g); !strings.Contains(f.help, h) {
			f.help += "; " + op.Name + ": " + h
		}
		f.public = append(f.public, op.Name)
	}
	for _, op := range query.Table() {
		for _, g := range op.Args {
			add(g.Flag(), op, g)
			if g.Alias != "" {
				add(g.Alias, op, g)
			}
		}
	}
	return out
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// describeArg is an argument's help with its bounds and default.
func describeArg(g query.Arg) string {
	h := g.Help
	var extra []string
	switch {
	case len(g.Enum) > 0:
		extra = append(extra, "one of "+strings.Join(g.Enum, ", "))
	case g.Min != nil && g.Max != nil:
		extra = append(extra, num(*g.Min)+" to "+num(*g.Max))
	case g.Min != nil:
		extra = append(extra, ">= "+num(*g.Min))
	}
	if g.Default != nil {
		extra = append(extra, fmt.Sprintf("default %v", g.Default))
	}
	if g.Required {
		extra = append(extra, "required")
	}
	switch {
	case len(extra) == 0:
	case strings.HasSuffix(h, ")"):
		// The help ends in its own parenthesis, which may be about its
		// last word only: the bounds follow it rather than open a second.
		h += "; " + strings.Join(extra, "; ")
	default:
		h += " (" + strings.Join(extra, "; ") + ")"
	}
	return h
}

var placeholders = map[query.ArgType]string{query.Number: " X", query.Integer: " N", query.String: " TEXT", query.Strings: " A,B", query.Integers: " N,N"}

// writeQueryHelp prints the public kinds and their flags; internal kinds
// and flags only they take are left out.
func writeQueryHelp(w io.Writer, flags []*queryFlag) {
	fmt.Fprint(w, `usage: dsight query REPORT [KIND] [flags]

Answers one question about a report as JSON on stdout. REPORT is a directory
"dsight build" wrote. Times are seconds from the report's origin (the exact
nanosecond string summary.meta.origin_ns). List answers carry total, offset,
limit, range and items; limit is at most 1000. A flag the kind does not take,
an unknown id, metric name or worker is an error (code bad_args or not_found),
never an empty answer.

examples:
  dsight query report summary
  dsight query report requests --from 29 --to 34 --worker decode-0 --limit 20
  dsight query report lifecycle --request REQUEST_ID
  dsight query report nsys --from 32 --to 33 --worker decode-0 --rank 0

kinds (default summary; "dsight help KIND" explains one):
`)
	for _, op := range query.Table() {
		if !op.Internal {
			fmt.Fprintf(w, "  %-16s %s\n", op.Name, op.Help)
		}
	}
	fmt.Fprintf(w, "\nflags:\n")
	shown := make([]*queryFlag, 0, len(flags))
	for _, f := range flags {
		if len(f.public) > 0 {
			shown = append(shown, f)
		}
	}
	sort.SliceStable(shown, func(i, j int) bool { return shown[i].name < shown[j].name })
	for _, f := range shown {
		fmt.Fprintf(w, "  --%s%s\n        %s [%s]\n", f.name, placeholders[f.typ], f.help, strings.Join(f.public, ", "))
	}
	fmt.Fprint(w, "  --internal\n        also answer a kind internal to the page (its tests compare them); without it they are refused\n")
	fmt.Fprint(w, "  --json\n        write a failure as a JSON record even on a terminal\n")
	fmt.Fprint(w, "\nOn a terminal a failure is a sentence on stderr; otherwise, and with --json,\nit is {\"ok\": false, \"code\": …, \"error\": …}.\n")
	fmt.Fprint(w, exitCodes)
}

// handle asks through Handle, exactly as the page asks, so both surfaces
// share one path; a failure comes back as the engine's *query.Error.
// askLoading answers req, reading from the report directory the shards the
// answer needs: the metric shards a metrics question names up front, then
// whatever an answer reports as shards_needed — metric summaries
// (page_metrics, stats) name the series they hold, Nsight detail shards do
// not — and asking again (the page does the same with its scripts). Each
// round loads at least one shard, so this ends. The CLI and the MCP server
// both ask through it.
func askLoading(e *query.Engine, core *catalog.Core, dir string, req wireRequest) (json.RawMessage, error) {
	if req.Op == "metrics" {
		if err := loadMetricShards(e, core, dir, req); err != nil {
			return nil, err
		}
	}
	result, err := handle(e, req)
	for round := 0; round < 4; round++ {
		var qerr *query.Error
		if !errors.As(err, &qerr) || qerr.Code != query.CodeShardsNeeded || len(qerr.Shards) == 0 {
			break
		}
		load := report.LoadDetailShards
		if req.Op == "page_metrics" || len(qerr.Shards[0].Series) > 0 {
			load = func(e *query.Engine, dir string, needs []query.ShardNeed) error {
				return report.LoadMetricShards(e, core, dir, needs)
			}
		}
		if err := load(e, dir, qerr.Shards); err != nil {
			return nil, err
		}
		result, err = handle(e, req)
	}
	return result, err
}

// askLazy is askLoading over a report opened without its evidence shard:
// the shard is read only when the answer needs it — "request" always (its
// record would say evidence_pending), any other kind when the engine
// answers evidence_pending — so the answer is the one a fully opened
// report gives.
func askLazy(e *query.Engine, rep *report.Lazy, req wireRequest) (json.RawMessage, error) {
	if id, ok := askedRequest(req); ok {
		// One request's answer needs only the evidence shard holding it.
		if err := rep.LoadEvidenceFor(e, id); err != nil {
			return nil, err
		}
	}
	result, err := askLoading(e, rep.Core, rep.Dir, req)
	if query.CodeOf(err) == query.CodeEvidencePending {
		if err := rep.LoadEvidence(e); err != nil {
			return nil, err
		}
		result, err = askLoading(e, rep.Core, rep.Dir, req)
	}
	return result, err
}

// named is the set of arguments the question gives.
func (r wireRequest) named() map[string]bool {
	set := make(map[string]bool, len(r.Args))
	for name := range r.Args {
		set[name] = true
	}
	return set
}

// answerPrefix opens every answer Engine.Handle gives (its envelope is one
// struct, ok first): the result is the bytes between it and the last brace,
// which spares decoding a long answer only to find where it starts.
const answerPrefix = `{"ok":true,"result":`

func handle(e *query.Engine, req wireRequest) (json.RawMessage, error) {
	body, _ := json.Marshal(req)
	out := e.Handle(body)
	if bytes.HasPrefix(out, []byte(answerPrefix)) && bytes.HasSuffix(out, []byte("}")) {
		return out[len(answerPrefix) : len(out)-1], nil
	}
	var env struct {
		OK     bool              `json:"ok"`
		Result json.RawMessage   `json:"result"`
		Code   query.Code        `json:"code"`
		Error  string            `json:"error"`
		Shards []query.ShardNeed `json:"shards"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, err
	}
	if !env.OK {
		return nil, &query.Error{Code: env.Code, Message: env.Error, Shards: env.Shards}
	}
	return env.Result, nil
}

// loadMetricShards asks the engine which summary shards a metrics question
// needs, reads them from the report and hands them over, as the page does
// with its detail scripts.
func loadMetricShards(e *query.Engine, core *catalog.Core, dir string, req wireRequest) error {
	req.Op = "metric_plan"
	raw, err := handle(e, req)
	if err != nil {
		return err
	}
	var plan query.MetricPlan
	if err := json.Unmarshal(raw, &plan); err != nil {
		return err
	}
	return report.LoadMetricShards(e, core, dir, plan.Shards)
}

// refuseInternal is the answer to a page-internal kind asked without
// --internal: bad_args, as the page's traceExplorer.query refuses it.
func refuseInternal(op *query.Op) error {
	return &query.Error{Code: query.CodeBadArgs, Message: fmt.Sprintf(
		"unknown query kind %q: it is internal to the page (the public kinds: %s; --internal asks it anyway)",
		op.Name, strings.Join(publicKinds(), ", "))}
}
