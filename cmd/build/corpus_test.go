package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// corpusCase is a case's expect.json (testdata/hostile/README.md).
type corpusCase struct {
	Item    int    `json:"item"`
	Exit    int    `json:"exit"`
	Message string `json:"message"`
	Warning string `json:"warning"`
	// Warnings are more patterns, each of which a warning must match.
	Warnings []string         `json:"warnings"`
	Audit    map[string]int64 `json:"audit"`
	FIFO     string           `json:"fifo"`
	// Links replace run paths by symbolic links: to the target as written,
	// or, for "outside:<name>", to <name> in a directory outside the run,
	// where the file or directory at the run path is moved first.
	Links map[string]string `json:"links"`
	// Append adds text to the end of run files; ${repeat:c:n} in it
	// stands for the character c n times (inputs too large to keep here).
	Append map[string]string `json:"append"`
	// Remove are run paths removed before the overlay is written.
	Remove []string `json:"remove"`
	Output string   `json:"output"`
	// Flags are more build flags (--no-otel).
	Flags []string `json:"flags"`
}

// buildSummary is what a build prints and the manifest holds.
type buildSummary struct {
	Summary struct {
		Meta struct {
			Warnings []string `json:"warnings"`
		} `json:"meta"`
		Audit map[string]int64 `json:"audit"`
	} `json:"summary"`
}

var repeatPattern = regexp.MustCompile(`\$\{repeat:(.):([0-9]+)\}`)

// TestHostileCorpus runs every case of testdata/hostile and checks its exit
// code, its message's shape and its audit counters, in the build summary
// and in the manifest.
func TestHostileCorpus(t *testing.T) {
	needAssets(t)
	cases, err := filepath.Glob("testdata/hostile/*/expect.json")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no corpus cases: %v", err)
	}
	for _, c := range cases {
		dir := filepath.Dir(c)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			b, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			var want corpusCase
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			run := lifecycleRun(t)
			for _, rel := range want.Remove {
				if err := os.Remove(filepath.Join(run, filepath.FromSlash(rel))); err != nil {
					t.Fatal(err)
				}
			}
			overlay := filepath.Join(dir, "overlay")
			filepath.WalkDir(overlay, func(p string, e os.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(overlay, p)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(run, rel), string(b))
				return nil
			})
			for rel, text := range want.Append {
				text = repeatPattern.ReplaceAllStringFunc(text, func(m string) string {
					g := repeatPattern.FindStringSubmatch(m)
					n, err := strconv.Atoi(g[2])
					if err != nil {
						t.Fatal(err)
					}
					return strings.Repeat(g[1], n)
				})
				appendFile(t, filepath.Join(run, filepath.FromSlash(rel)), text)
			}
			if want.FIFO != "" {
				p := filepath.Join(run, filepath.FromSlash(want.FIFO))
				os.Remove(p)
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Skip("no named pipes here:", err)
				}
			}
			outside := t.TempDir()
			for link, target := range want.Links {
				p := filepath.Join(run, filepath.FromSlash(link))
				if name, ok := strings.CutPrefix(target, "outside:"); ok {
					target = filepath.Join(outside, filepath.FromSlash(name))
					if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(p, target); err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
				}
				os.RemoveAll(p)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, p); err != nil {
					t.Skip("no symbolic links here:", err)
				}
			}
			out := filepath.Join(t.TempDir(), "report")
			if want.Output != "" {
				out = filepath.Join(run, filepath.FromSlash(want.Output))
			}
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, stdout, stderr := dsight(t, append([]string{"build", run, "-o", out, "--json"}, want.Flags...)...)
				done <- result{code, stdout, stderr}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the build blocks")
			}
			if r.code != want.Exit {
				t.Fatalf("exit %d, want %d (stderr %s)", r.code, want.Exit, r.stderr)
			}
			if want.Exit != 0 {
				var e struct {
					Error string `json:"error"`
				}
				if err := json.Unmarshal([]byte(r.stderr), &e); err != nil {
					t.Fatalf("not the JSON error record: %q", r.stderr)
				}
				if !regexp.MustCompile(want.Message).MatchString(e.Error) {
					t.Fatalf("error %q does not match %q", e.Error, want.Message)
				}
				return
			}
			var fromBuild, fromManifest buildSummary
			if err := json.Unmarshal([]byte(r.stdout), &fromBuild); err != nil {
				t.Fatal(err)
			}
			mb, err := os.ReadFile(filepath.Join(out, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(mb, &fromManifest); err != nil {
				t.Fatal(err)
			}
			for where, s := range map[string]buildSummary{"build summary": fromBuild, "manifest": fromManifest} {
				for k, v := range want.Audit {
					if got := s.Summary.Audit[k]; got != v {
						t.Errorf("%s: audit %s = %d, want %d", where, k, got, v)
					}
				}
				for _, pattern := range append(want.Warnings, want.Warning) {
					if pattern == "" {
						continue
					}
					re, found := regexp.MustCompile(pattern), false
					for _, w := range s.Summary.Meta.Warnings {
						found = found || re.MatchString(w)
					}
					if !found {
						t.Errorf("%s: no warning matches %q in %q", where, pattern, s.Summary.Meta.Warnings)
					}
				}
			}
		})
	}
}
