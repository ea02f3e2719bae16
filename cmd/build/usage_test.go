package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/query"
)

// Bad usage exits 2 whatever the command: a flag `dsight query` does not
// know (or one left without its value), and a zone name
// --iteration-timezone cannot load.
func TestBadUsageExitsTwo(t *testing.T) {
	dir := t.TempDir()
	for _, argv := range [][]string{
		{"query", dir, "requests", "--bogus", "1"},
		{"query", dir, "requests", "--limit"},
		{"query", dir, "--frm", "3"},
		{"build", dir, "-o", filepath.Join(dir, "out"), "--iteration-timezone", "Mars/Olympus"},
	} {
		code, stdout, stderr := dsight(t, argv...)
		if code != 2 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q; want exit 2 (bad usage): %s", argv, code, stdout, stderr)
		}
	}
	_, _, stderr := dsight(t, "build", dir, "-o", filepath.Join(dir, "out"), "--iteration-timezone", "Mars/Olympus")
	if !strings.Contains(stderr, "IANA zone name") {
		t.Errorf("the zone error does not say what to give: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("a refused build wrote its output: %v", err)
	}
}

// An internal kind is refused as the page's query() refuses it (bad_args,
// exit 1) unless asked with --internal, which answers exactly what the
// engine answers.
func TestQueryRefusesInternalKinds(t *testing.T) {
	report, _ := goldenDir(t)
	for _, op := range query.Table() {
		if !op.Internal {
			continue
		}
		code, stdout, stderr := dsight(t, "query", report, op.Name)
		var env struct {
			OK    bool       `json:"ok"`
			Code  query.Code `json:"code"`
			Error string     `json:"error"`
		}
		if err := json.Unmarshal([]byte(stderr), &env); err != nil || code != 1 || stdout != "" || env.Code != query.CodeBadArgs || !strings.Contains(env.Error, "internal to the page") {
			t.Errorf("%s without --internal: exit %d, %v: %s", op.Name, code, err, stderr)
		}
	}
	for _, argv := range [][]string{{"timeline", "--internal"}, {"--internal", "default_metric"}, {"overview", "--internal=true", "--bins", "4"}} {
		if code, stdout, stderr := dsight(t, append([]string{"query", report}, argv...)...); code != 0 || !json.Valid([]byte(stdout)) {
			t.Errorf("%v: exit %d: %s", argv, code, stderr)
		}
	}
}

// An argument's help that ends in its own parenthesis gets its bounds
// after it, not a second parenthesis: "(…) (>= 0)" reads as a typo.
func TestQueryHelpHasNoDoubledParentheses(t *testing.T) {
	var help strings.Builder
	queryRequest([]string{"--help"}, &help)
	text := help.String()
	if strings.Contains(text, ") (") {
		t.Errorf("help doubles parentheses:\n%s", text)
	}
	for _, shown := range []string{"(unknown TTFT counts as 0); >= 0", "--internal"} {
		if !strings.Contains(text, shown) {
			t.Errorf("help lacks %q", shown)
		}
	}
	for _, op := range query.Table() {
		for _, g := range op.Args {
			if h := describeArg(g); strings.Contains(h, ") (") {
				t.Errorf("%s %s: %q", op.Name, g.Name, h)
			}
		}
	}
}
