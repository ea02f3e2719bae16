package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/tools/gen/synth"
)

// guideBlock is one fenced example of docs/agents.md.
type guideBlock struct {
	lang, text string
	line       int
}

// guideBlocks reads the fenced blocks of docs/agents.md whose info string
// is "<lang> test" (or every block of lang when all is set).
func guideBlocks(t *testing.T, lang string, all bool) []guideBlock {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []guideBlock
	var cur *guideBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			info := strings.Fields(strings.TrimPrefix(line, "```"))
			if len(info) > 0 && info[0] == lang && (all || len(info) > 1 && info[1] == "test") {
				cur = &guideBlock{lang: lang, line: n}
			} else if len(info) > 0 {
				cur = &guideBlock{lang: "-"}
			}
		case cur != nil && line == "```":
			if cur.lang == lang {
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAgentsGuideExamples runs every `sh test` and `python test` block of
// docs/agents.md against a report built like the demo's, with dsight on
// PATH and REPORT set, as a reader following the guide would.
func TestAgentsGuideExamples(t *testing.T) {
	needAssets(t)
	for _, tool := range []string{"bash", "jq", "sqlite3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the guide's examples need %s", tool)
		}
	}
	src, err := synth.ParseSources("aiperf,frontend,otel,workers,sglang,tokenspeed,tachometer,nsight")
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(run, synth.Config{Seed: 1, Scale: 1, Hostile: true, Sources: src}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "demo-report")
	if code, _, stderr := dsight(t, "build", run, "-o", out, "--iteration-timezone", "UTC"); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "dsight"), ".")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	env := append(os.Environ(), "REPORT="+out, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	sh := guideBlocks(t, "sh", false)
	if len(sh) < 8 {
		t.Fatalf("docs/agents.md has %d sh test blocks", len(sh))
	}
	for _, b := range sh {
		cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+b.text)
		cmd.Env = env
		stdout, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Errorf("docs/agents.md:%d: %v\n%s\n%s", b.line, err, stdout, stderr)
			continue
		}
		t.Logf("docs/agents.md:%d:\n%.600s", b.line, stdout)
		// Every example prints something, and jq never met a null where
		// the guide expects a value.
		if strings.TrimSpace(string(stdout)) == "" || strings.Contains(string(stdout), "jq: error") {
			t.Errorf("docs/agents.md:%d printed %q", b.line, stdout)
		}
	}

	// The MCP client configuration is JSON naming `dsight mcp`.
	for _, b := range guideBlocks(t, "json", true) {
		var cfg map[string]any
		if err := json.Unmarshal([]byte(b.text), &cfg); err != nil || !strings.Contains(b.text, `"mcp"`) {
			t.Errorf("docs/agents.md:%d: %v", b.line, err)
		}
	}

	py := guideBlocks(t, "python", false)
	if len(py) == 0 {
		t.Fatal("docs/agents.md has no python test block")
	}
	if err := exec.Command("python3", "-c", "import pandas").Run(); err != nil {
		t.Logf("python3 with pandas is not installed: the %d python example(s) of docs/agents.md were not run", len(py))
		return
	}
	for _, b := range py {
		cmd := exec.Command("python3", "-c", b.text)
		cmd.Env = env
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("docs/agents.md:%d: %v\n%s", b.line, err, o)
		}
	}
}
