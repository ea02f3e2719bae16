package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsight/dsight/internal/report"
)

// mcpSession connects the go-sdk's client to the real server over
// in-memory pipes: the same JSON-RPC exchange a model's client runs over
// stdio (initialize, tools/list, tools/call).
func mcpSession(t *testing.T, reportDir string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(&reportSource{path: reportDir}).Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, args map[string]any) (text string, isError bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpToolName, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %v: %v", args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("tools/call %v: %d content blocks", args, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("tools/call %v: content %T", args, res.Content[0])
	}
	return tc.Text, res.IsError
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return b.String()
}

func TestMCPExchange(t *testing.T) {
	needAssets(t)
	runDir := genRun(t)
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", runDir, "-o", out, "--job", "first"); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	cs := mcpSession(t, out)
	if init := cs.InitializeResult(); init == nil || init.ServerInfo.Name != "dsight" || init.Capabilities.Tools == nil {
		t.Fatalf("initialize: %+v", init)
	}

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != mcpToolName {
		t.Fatalf("tools/list: %+v", tools.Tools)
	}
	tool := tools.Tools[0]
	if a := tool.Annotations; a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("annotations %+v: want readOnlyHint and no destructiveHint", a)
	}
	schema, _ := json.Marshal(tool.InputSchema)
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
			Type string   `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Properties["kind"].Enum; !slices.Equal(got, publicKinds()) {
		t.Errorf("kind enum %v, want the op table's public kinds %v", got, publicKinds())
	}
	for _, name := range []string{"from", "to", "id", "worker", "limit", "offset", "points", "min_ttft_ms"} {
		if _, ok := s.Properties[name]; !ok {
			t.Errorf("the schema lacks %s", name)
		}
	}
	if s.Properties["limit"].Type != "integer" || s.Properties["points"].Type != "boolean" {
		t.Errorf("argument types: limit %q, points %q", s.Properties["limit"].Type, s.Properties["points"].Type)
	}
	if !strings.Contains(tool.Description, "Read-only") {
		t.Errorf("description: %s", tool.Description)
	}

	// The tool answers with the CLI's bytes.
	for _, c := range []struct {
		args map[string]any
		argv []string
	}{
		{map[string]any{}, []string{"query", out}},
		{map[string]any{"kind": "requests", "from": 1, "to": 200, "limit": 3}, []string{"query", out, "requests", "--from", "1", "--to", "200", "--limit", "3"}},
		{map[string]any{"kind": "sessions", "sort": "ttft", "limit": 2}, []string{"query", out, "sessions", "--sort", "ttft", "--limit", "2"}},
		{map[string]any{"kind": "sources", "limit": 5}, []string{"query", out, "sources", "--limit", "5"}},
		{map[string]any{"kind": "metric_families"}, []string{"query", out, "metric_families"}},
	} {
		text, isErr := callTool(t, cs, c.args)
		code, stdout, stderr := dsight(t, c.argv...)
		if isErr || code != 0 {
			t.Fatalf("%v: tool error %v (%s), CLI %d (%s)", c.args, isErr, text, code, stderr)
		}
		if compact(t, text) != compact(t, stdout) {
			t.Errorf("%v: the tool and the CLI differ:\n%s\n%s", c.args, text, stdout)
		}
	}
	var page struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	text, _ := callTool(t, cs, map[string]any{"kind": "requests", "limit": 1})
	if err := json.Unmarshal([]byte(text), &page); err != nil || len(page.Items) != 1 {
		t.Fatalf("requests: %v %s", err, text)
	}
	if text, isErr := callTool(t, cs, map[string]any{"kind": "lifecycle", "id": page.Items[0].ID}); isErr || !strings.Contains(text, `"request"`) {
		t.Errorf("lifecycle: %s", text)
	}

	// Errors carry the engine's code.
	for _, c := range []struct {
		args map[string]any
		code string
	}{
		{map[string]any{"kind": "requests", "limit": 5000}, "bad_args"},
		{map[string]any{"kind": "summary", "limit": 5}, "bad_args"},
		{map[string]any{"kind": "no_such_kind"}, "bad_args"},
		{map[string]any{"kind": "timeline"}, "bad_args"},
		{map[string]any{"kind": "request", "id": "no-such-request"}, "not_found"},
	} {
		text, isErr := callTool(t, cs, c.args)
		var env struct {
			OK    bool   `json:"ok"`
			Code  string `json:"code"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal([]byte(text), &env); err != nil || !isErr || env.OK || env.Code != c.code || env.Error == "" {
			t.Errorf("%v: error %v, %s; want code %s", c.args, isErr, text, c.code)
		}
	}

	// A rebuild of the report is picked up by the running server.
	if code, _, stderr := dsight(t, "build", runDir, "-o", out, "--job", "second"); code != 0 {
		t.Fatalf("rebuild: %s", stderr)
	}
	text, _ = callTool(t, cs, map[string]any{"kind": "summary"})
	if !strings.Contains(text, `"job":"second"`) && !strings.Contains(text, `"job": "second"`) {
		t.Errorf("after a rebuild the server still answers from the old report: %.200s", text)
	}
}

// The page never loads the store, and publishing leaves it out.
func TestPublishSkipsTheStore(t *testing.T) {
	needAssets(t)
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", genRun(t), "-o", out); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, report.StoreFile)); err != nil {
		t.Fatal(err)
	}
	bucket := filepath.Join(t.TempDir(), "bucket")
	if code, _, stderr := dsight(t, "publish", out, "--to", bucket); code != 0 {
		t.Fatalf("publish: %s", stderr)
	}
	err := filepath.WalkDir(bucket, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if bytes.HasPrefix(b, []byte("SQLite format 3")) {
			t.Errorf("the bucket holds the SQL store as %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
