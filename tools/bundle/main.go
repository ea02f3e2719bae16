// Command bundle builds the page assets in web/dist with esbuild's Go API:
// one IIFE script (Go's wasm_exec.js, uPlot and the page code; classic
// scripts are the only kind a file:// page may run), one stylesheet, and the
// page template. Node is needed only to install node_modules, never here.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

func main() {
	src := flag.String("src", "web/src", "page sources")
	out := flag.String("out", "web/dist", "output directory")
	wasmExec := flag.String("wasm-exec", "", "Go's wasm_exec.js (default: the one of the go command on PATH)")
	names := flag.Bool("keep-names", false, "keep the page code's identifiers (a profile then names its functions)")
	flag.Parse()
	keepNames = *names
	if err := run(*src, *out, *wasmExec); err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

// goWasmExec is the wasm_exec.js of the go command that builds the engine:
// the two must come from the same release. The root this program was built
// with is not asked, since a cached binary may outlive its toolchain.
func goWasmExec() (string, error) {
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", "wasm_exec.js"), nil
}

func run(src, out, wasmExec string) error {
	if wasmExec == "" {
		var err error
		if wasmExec, err = goWasmExec(); err != nil {
			return err
		}
	}
	goRuntime, err := os.ReadFile(wasmExec)
	if err != nil {
		return fmt.Errorf("read wasm_exec.js: %w", err)
	}
	js, err := build(api.BuildOptions{
		EntryPoints: []string{filepath.Join(src, "index.js")},
		Format:      api.FormatIIFE,
		Target:      api.ES2022,
		Banner:      map[string]string{"js": string(goRuntime)},
	})
	if err != nil {
		return err
	}
	css, err := build(api.BuildOptions{EntryPoints: []string{filepath.Join(src, "style.css")}})
	if err != nil {
		return err
	}
	tmpl, err := os.ReadFile(filepath.Join(src, "index.html"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"app.js": js, "app.css": css, "index.html": tmpl} {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// keepNames leaves identifiers unminified (-keep-names), for profiling.
var keepNames bool

func build(opt api.BuildOptions) ([]byte, error) {
	opt.Bundle = true
	opt.Write = false
	opt.MinifySyntax = true
	opt.MinifyWhitespace = true
	opt.MinifyIdentifiers = !keepNames
	opt.LegalComments = api.LegalCommentsInline
	opt.LogLevel = api.LogLevelSilent
	r := api.Build(opt)
	if len(r.Errors) > 0 {
		msgs := api.FormatMessages(r.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, fmt.Errorf("esbuild:\n%s", msgs)
	}
	if len(r.OutputFiles) != 1 {
		return nil, fmt.Errorf("esbuild produced %d files, want 1", len(r.OutputFiles))
	}
	return r.OutputFiles[0].Contents, nil
}
