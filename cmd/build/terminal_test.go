package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// dsightBinary builds the command once per test into a temporary
// directory: the terminal tests run it under a real pseudo-terminal.
func dsightBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dsight")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// underTerminal runs argv with stdin, stdout and stderr on a pty, through
// util-linux script(1); env is added to the test's environment (with CI
// removed, as a person's shell has it).
func underTerminal(t *testing.T, env []string, argv ...string) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) not installed (util-linux)")
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	cmd := exec.Command("script", "-qfec", strings.Join(quoted, " "), "/dev/null")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n"), code
}

// On a terminal the build shows a line per phase and then the summary; a
// failure is a sentence. Piped, in CI or with --quiet, stderr stays quiet.
func TestTerminalProgressAndQuiet(t *testing.T) {
	needAssets(t)
	bin := dsightBinary(t)
	runDir := genRun(t)
	out := filepath.Join(t.TempDir(), "report")

	text, code := underTerminal(t, nil, bin, "build", runDir, "-o", out)
	if code != 0 {
		t.Fatalf("build on a terminal: exit %d\n%s", code, text)
	}
	t.Logf("on a terminal:\n%s", text)
	for _, want := range []string{"s  finding the sources in ", "s  reading client exports (1 file)…", "s  reading worker logs (", "s  joining server evidence to the requests…", "s  writing the report to ", "s  done\n", "\n  requests ", "Open: " + filepath.Join(out, "index.html")} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal output lacks %q", want)
		}
	}
	for _, quiet := range []struct {
		name string
		env  []string
		args []string
	}{{"CI", []string{"CI=true"}, nil}, {"--quiet", nil, []string{"--quiet"}}, {"--json", nil, []string{"--json"}}} {
		text, code := underTerminal(t, quiet.env, append([]string{bin, "build", runDir, "-o", out}, quiet.args...)...)
		if code != 0 || strings.Contains(text, "reading ") {
			t.Errorf("%s: exit %d, progress shown:\n%s", quiet.name, code, text)
		}
	}
	// Not a terminal: nothing on stderr.
	cmd := exec.Command(bin, "build", runDir, "-o", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() != 0 {
		t.Errorf("piped build: %v, stderr %q", err, stderr.String())
	}

	// A failure on a terminal is a sentence; piped it is the JSON record.
	text, code = underTerminal(t, nil, bin, "query", out, "request", "--request", "nope")
	if code != 1 || !strings.HasPrefix(text, "dsight: ") || strings.Contains(text, `"ok"`) || !strings.Contains(text, "(not_found)") {
		t.Errorf("terminal failure: exit %d: %q", code, text)
	}
	text, code = underTerminal(t, nil, bin, "query", out, "request", "--request", "nope", "--json")
	if code != 1 || !strings.Contains(text, `"code":"not_found"`) {
		t.Errorf("--json failure: exit %d: %q", code, text)
	}
	text, code = underTerminal(t, nil, bin, "build", runDir)
	if code != 2 || !strings.HasPrefix(text, "dsight: build needs one RUN directory and -o REPORT") {
		t.Errorf("terminal usage error: exit %d: %q", code, text)
	}
}
