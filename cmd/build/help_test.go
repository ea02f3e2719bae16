package main

import (
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/query"
)

// `dsight` alone is bad usage: the overview goes to stderr with exit 2;
// `dsight help` and `dsight --help` print it on stdout.
func TestOverviewListsEveryCommand(t *testing.T) {
	code, out, errText := dsight(t)
	if code != 2 || out != "" {
		t.Fatalf("dsight: exit %d, stdout %q", code, out)
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		code, out, _ := dsight(t, args...)
		if code != 0 || out != errText {
			t.Errorf("%v: exit %d, and not the overview", args, code)
		}
	}
	for _, c := range commands {
		if !strings.Contains(errText, "\n  "+c.name+" ") {
			t.Errorf("overview lacks the command %s", c.name)
		}
	}
	for _, want := range []string{"dsight build", "dsight query", "dsight help KIND"} {
		if !strings.Contains(errText, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	_, a, _ := dsight(t, "version")
	code, b, _ := dsight(t, "--version")
	if code != 0 || a != b || !strings.HasPrefix(a, "dsight ") {
		t.Fatalf("--version: exit %d, %q vs %q", code, b, a)
	}
}

// `dsight help KIND` explains every public kind with each flag it takes;
// internal kinds and unknown words are bad usage.
func TestHelpKind(t *testing.T) {
	for _, op := range query.Table() {
		code, out, _ := dsight(t, "help", op.Name)
		if op.Internal {
			if code != 2 {
				t.Errorf("help %s (internal): exit %d, want 2", op.Name, code)
			}
			continue
		}
		if code != 0 || strings.TrimSpace(op.Help) == "" {
			t.Errorf("help %s: exit %d, help %q", op.Name, code, op.Help)
		}
		for _, g := range op.Args {
			if !strings.Contains(out, "--"+kindFlag(g)) {
				t.Errorf("help %s lacks --%s", op.Name, kindFlag(g))
			}
		}
		if !strings.Contains(out, "dsight query report "+op.Name) || !strings.Contains(out, "exit codes:") {
			t.Errorf("help %s has no example or exit codes:\n%s", op.Name, out)
		}
	}
	if code, _, errText := dsight(t, "help", "frobnicate"); code != 2 || !strings.Contains(errText, "neither a command") {
		t.Fatalf("help frobnicate: exit %d: %s", code, errText)
	}
}

// Every command's --help is its help, and `dsight help COMMAND` the same.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		code, a, _ := dsight(t, "help", c.name)
		if code != 0 || !strings.Contains(a, "usage: dsight") || !strings.Contains(a, "exit codes:") {
			t.Errorf("help %s: exit %d:\n%s", c.name, code, a)
		}
		if c.name == "help" {
			continue
		}
		if code, b, _ := dsight(t, c.name, "--help"); code != 0 || a != b {
			t.Errorf("%s --help: exit %d, differs from help %s", c.name, code, c.name)
		}
	}
}

// build --help explains RUN, what is discovered, gives examples and lists
// every flag the build takes, in GNU spelling.
func TestBuildHelpListsEveryFlag(t *testing.T) {
	code, out, _ := dsight(t, "build", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"RUN is the run directory", "client export", "worker logs", "OTel", "Nsight", "Tachometer", "examples:", "-o, --output DIR", "-q, --quiet", "exit codes:"} {
		if !strings.Contains(out, want) {
			t.Errorf("build --help lacks %q", want)
		}
	}
	buildFlagSet(&importer.Options{}, new(string), new(string), new(string), new(string), new(bool), new(bool), new(bool)).VisitAll(func(f *flag.Flag) {
		if len(f.Name) > 1 && !strings.Contains(out, "--"+f.Name) {
			t.Errorf("build --help lacks --%s", f.Name)
		}
	})
	if strings.Contains(out, "Usage of") || strings.Contains(out, "\n  -client") {
		t.Error("build --help is Go's flag dump")
	}
}

func TestQueryHelpForNewcomers(t *testing.T) {
	code, out, _ := dsight(t, "query", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"REPORT is a directory", "examples:", "dsight query report summary", "exit codes:", "bad_args", "not_found"} {
		if !strings.Contains(out, want) {
			t.Errorf("query --help lacks %q", want)
		}
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	runDir := t.TempDir()
	for _, args := range [][]string{
		{"frobnicate"},
		{"build"},
		{"build", runDir},
		{"build", runDir, "-o", t.TempDir() + "/r", "--no-such-flag"},
		{"build", runDir, "-o"},
		{"help", "build", "query"},
	} {
		code, out, errText := dsight(t, args...)
		if code != 2 || out != "" || errText == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errText)
		}
	}
}

// A command registered from another file lands before version and help.
func TestRegisterKeepsVersionAndHelpLast(t *testing.T) {
	saved := commands
	defer func() { commands = saved }()
	commands = append([]*command(nil), saved...)
	register(&command{name: "serve", summary: "x", help: func(io.Writer) {}, run: func([]string, io.Writer, io.Writer) error { return nil }})
	n := len(commands)
	if commands[n-1].name != "help" || commands[n-2].name != "version" || commands[n-3].name != "serve" {
		t.Fatalf("order: %v", commandNames())
	}
}

// The build prints a summary for people; --json keeps the machine record.
func TestBuildSummary(t *testing.T) {
	needAssets(t)
	runDir := genRun(t)
	out := filepath.Join(t.TempDir(), "report")
	code, text, errText := dsight(t, "build", runDir, "-o", out)
	if code != 0 {
		t.Fatalf("build: %s", errText)
	}
	if errText != "" {
		t.Errorf("stderr is not a terminal, yet the build wrote %q", errText)
	}
	for _, want := range []string{"\n  requests ", "\n  sessions ", "\n  workers ", "\n  metric families ", "\n  profiles ", "\n  warnings ", "Open: " + filepath.Join(out, "index.html") + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		t.Error("the default summary is JSON")
	}
	var m struct {
		Summary json.RawMessage `json:"summary"`
	}
	code, js, _ := dsight(t, "build", runDir, "-o", out, "--json")
	if code != 0 || json.Unmarshal([]byte(js), &m) != nil || len(m.Summary) == 0 {
		t.Fatalf("--json: exit %d: %s", code, js)
	}
	// Each warning is on its own line.
	var s struct {
		Meta struct {
			Warnings []string `json:"warnings"`
		} `json:"meta"`
	}
	json.Unmarshal(m.Summary, &s)
	for _, w := range s.Meta.Warnings {
		if !strings.Contains(text, "\nwarning: "+w+"\n") {
			t.Errorf("summary lacks the warning line %q", w)
		}
	}
}
