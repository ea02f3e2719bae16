package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// `dsight mcp REPORT` serves one read-only tool, query_trace, over stdio.
// Its kinds and arguments are the public operations of internal/query's op
// table, and each call goes through Engine.Handle as `dsight query` does,
// so the three surfaces (page, CLI, MCP) answer with the same bytes.

const mcpToolName = "query_trace"

const mcpToolDescription = `Answer a question about one LLM-inference benchmark report (a dsight report directory, fixed when the server started). Read-only: it never builds, runs or changes anything.

Pick a kind (default "summary") and pass only the arguments that kind takes; an argument the kind does not take, an unknown kind or id, or a value out of bounds fails with a code (bad_args, not_found) and a message saying what to change.

Times are seconds from the report's origin (summary.meta.origin_ns). List kinds return {total, offset, limit, range, items}; limit is at most 1000 (0 returns only the total), page with offset. Unknown values are null, never 0; every record names the file and line it came from (evidence).

A good order: summary (coverage: what sources, counts and capabilities the run has) → requests in a bounded window (from/to, min_ttft_ms, worker) → request or lifecycle for one id (server spans, stages and their evidence) → metrics for a worker over the same window (points=true for samples) and nsys/iterations for shared execution context → sources to cite files. Overlap in time shows shared context, not that one request caused another.`

// mcpCmd runs the server until stdin closes.
func mcpCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: dsight mcp REPORT\n\nServes the read-only %s tool over stdio (Model Context Protocol) for the report directory REPORT.\nThe report is reopened when it is rebuilt.\n", mcpToolName)
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: dsight mcp REPORT", errUsage)
	}
	src := &reportSource{path: pos[0]}
	if _, err := src.engine(); err != nil {
		return err
	}
	return newMCPServer(src).Run(context.Background(), &mcp.StdioTransport{})
}

// newMCPServer is the server with its one tool, over src.
func newMCPServer(src *reportSource) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "dsight", Version: fmt.Sprintf("report format %d", report.FormatVersion)}, nil)
	no := false
	s.AddTool(&mcp.Tool{
		Name:        mcpToolName,
		Title:       "Query a dsight trace report",
		Description: mcpToolDescription,
		InputSchema: mcpInputSchema(),
		Annotations: &mcp.ToolAnnotations{Title: "Query a dsight trace report", ReadOnlyHint: true, DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcpAnswer(src, req.Params.Arguments), nil
	})
	return s
}

// publicKinds are the op table's documented kinds, in table order.
func publicKinds() []string {
	var out []string
	for _, op := range query.Table() {
		if !op.Internal {
			out = append(out, op.Name)
		}
	}
	return out
}

var schemaTypes = map[query.ArgType]map[string]any{
	query.Number:   {"type": "number"},
	query.Integer:  {"type": "integer"},
	query.String:   {"type": "string"},
	query.Boolean:  {"type": "boolean"},
	query.Strings:  {"type": "array", "items": map[string]any{"type": "string"}},
	query.Integers: {"type": "array", "items": map[string]any{"type": "integer"}},
}

// mcpInputSchema derives the tool's JSON schema from the op table: "kind"
// is one of the public kinds, and every argument a public kind takes is a
// property whose description says which kinds take it.
func mcpInputSchema() map[string]any {
	kinds := publicKinds()
	props := map[string]any{
		"kind": map[string]any{"type": "string", "enum": kinds, "default": "summary",
			"description": "what to ask: " + kindHelp()},
	}
	type prop struct {
		typ   query.ArgType
		help  []string
		kinds []string
		arg   query.Arg
	}
	byName := map[string]*prop{}
	for _, op := range query.Table() {
		if op.Internal {
			continue
		}
		for _, g := range op.Args {
			p := byName[g.Name]
			if p == nil {
				p = &prop{typ: g.Type, arg: g}
				byName[g.Name] = p
			}
			if h := describeArg(g); !slices.Contains(p.help, h) {
				p.help = append(p.help, h)
			}
			p.kinds = append(p.kinds, op.Name)
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := byName[n]
		s := map[string]any{}
		for k, v := range schemaTypes[p.typ] {
			s[k] = v
		}
		s["description"] = strings.Join(p.help, "; ") + " [kinds: " + strings.Join(p.kinds, ", ") + "]"
		props[n] = s
	}
	return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
}

func kindHelp() string {
	var parts []string
	for _, op := range query.Table() {
		if !op.Internal {
			parts = append(parts, op.Name+" ("+op.Help+")")
		}
	}
	return strings.Join(parts, "; ")
}

// mcpAnswer runs one call. A failure is a tool error whose text is the
// engine's envelope, {"ok": false, "code": …, "error": …}, so a model
// branches on the code as a script does.
func mcpAnswer(src *reportSource, raw json.RawMessage) *mcp.CallToolResult {
	args := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return mcpError(&query.Error{Code: query.CodeBadArgs, Message: "arguments must be a JSON object: " + err.Error()})
		}
	}
	req := wireRequest{Op: "summary", Args: args}
	if k, ok := args["kind"]; ok {
		if err := json.Unmarshal(k, &req.Op); err != nil {
			return mcpError(&query.Error{Code: query.CodeBadArgs, Message: "kind must be a string"})
		}
		delete(args, "kind")
	}
	if !slices.Contains(publicKinds(), req.Op) {
		return mcpError(&query.Error{Code: query.CodeBadArgs, Message: fmt.Sprintf("unknown kind %q; use one of %s", req.Op, strings.Join(publicKinds(), ", "))})
	}
	r, err := src.ask(req)
	if err != nil {
		return mcpError(err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(escapeBidi(r))}}}
}

func mcpError(err error) *mcp.CallToolResult {
	rec := map[string]any{"ok": false, "error": err.Error()}
	var qe *query.Error
	if errors.As(err, &qe) {
		rec["code"], rec["error"] = qe.Code, qe.Message
	}
	b, _ := json.Marshal(rec)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// reportSource is the report a server answers from, reopened when its
// manifest changes (a rebuild swaps the whole directory, manifest
// included), so a long-lived server never answers from a replaced report.
type reportSource struct {
	path string

	mu   sync.Mutex
	hash [32]byte
	eng  *query.Engine
	core *catalog.Core
	dir  string
}

func (s *reportSource) engine() (*query.Engine, error) {
	dir := s.path
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	m, err := os.ReadFile(filepath.Join(dir, report.ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("%s is not a dsight report (no %s): %w", s.path, report.ManifestFile, err)
	}
	h := sha256.Sum256(m)
	if s.eng != nil && h == s.hash {
		return s.eng, nil
	}
	core, dir, err := report.OpenDir(s.path)
	if err != nil {
		return nil, err
	}
	e, err := query.New(core)
	if err != nil {
		return nil, err
	}
	s.hash, s.eng, s.core, s.dir = h, e, core, dir
	return e, nil
}

// ask answers req from the current report, loading the metric and detail
// shards the engine names, as `dsight query` does.
func (s *reportSource) ask(req wireRequest) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.engine()
	if err != nil {
		return nil, err
	}
	return askLoading(e, s.core, s.dir, req)
}
