// Package archtest holds the test that keeps imports flowing one way:
// entry points on top, the query engine and report writer in the middle,
// the model and per-format parsers at the bottom.
package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/dsight/dsight/"

// allowed lists, per package, the packages of this module it may import.
// A package missing from the table may import only the model. Every
// package may import the bottom-layer readers in readers.
var allowed = map[string][]string{
	"internal/model":                   {},
	"internal/shard":                   {},
	"internal/lifecycle":               {"internal/model"},
	"internal/sessionmetrics":          {"internal/model", "internal/pyramid", "internal/shard"},
	"internal/jsonscan":                {},
	"internal/lineread":                {},
	"internal/catalog":                 {"internal/model", "internal/shard", "internal/watermark"},
	"internal/watermark":               {},
	"internal/query":                   {"internal/model", "internal/catalog", "internal/pyramid", "internal/shard", "internal/lifecycle", "internal/perfetto", "internal/sessionmetrics"},
	"internal/perfetto":                {},
	"internal/report":                  {"internal/model", "internal/catalog", "internal/query", "internal/shard"},
	"internal/importer":                {"internal/model", "internal/catalog", "internal/aiperf", "internal/agentperf", "internal/otlp", "internal/dynamolog", "internal/sourcename", "internal/lifecycle", "internal/metrics", "internal/batchobs", "internal/importer/join", "internal/nsys", "internal/sessionmetrics", "internal/spanspill"},
	"internal/importer/join":           {"internal/model", "internal/lifecycle", "internal/sourcename"},
	"internal/spanspill":               {"internal/model"},
	"internal/importer/join/jointest":  {"internal/model", "internal/importer/join", "internal/otlp", "internal/dynamolog", "internal/sourcename"},
	"internal/metrics":                 {"internal/model", "internal/shard", "internal/pyramid", "internal/tachometer", "internal/logmetric", "internal/sglang", "internal/tokenspeed", "internal/sourcename"},
	"internal/aiperf":                  {"internal/model"},
	"internal/agentperf":               {"internal/model"},
	"internal/sourcename":              {"internal/model"},
	"internal/otlp":                    {"internal/model"},
	"internal/dynamolog":               {"internal/model"},
	"internal/logmetric":               {},
	"internal/logmetric/logmetrictest": {"internal/logmetric", "internal/golden"},
	"internal/sglang":                  {"internal/logmetric"},
	"internal/tokenspeed":              {"internal/logmetric"},
	"internal/trtllm":                  {"internal/model", "internal/logmetric"},
	"internal/batchobs":                {"internal/model", "internal/logmetric", "internal/trtllm", "internal/tokenspeed"},
	"internal/tachometer":              {},
	"internal/nsys":                    {"internal/model", "internal/sourcename"},
	"internal/nsys/nsystest":           {},
	"internal/pyramid":                 {"internal/shard"},
	"wasm":                             {"internal/catalog", "internal/query", "internal/shard"},
	"web":                              {},
	"cmd/build":                        {"internal/importer", "internal/report", "internal/query", "internal/catalog", "internal/publish", "internal/sqlstore", "web"},
	"internal/sqlstore":                {"internal/model", "internal/lifecycle", "internal/pyramid", "internal/shard", "internal/watermark"},
	"cmd/edge":                         {"internal/edge"},
	"internal/edge":                    {},
	"internal/publish":                 {"internal/edge", "internal/report", "internal/shard"},
}

// readers are the bottom-layer JSON scanner and line reader the parsers
// share; they import only the standard library.
var readers = []string{"internal/jsonscan", "internal/lineread"}

// inputReaders are the packages that read input formats, and what only
// they use. The engine answers from a report, never from inputs: neither
// the query engine nor the wasm may reach one of them, even indirectly.
// The JSON scanner is not one: it reads no format of its own, and the
// engine reads its questions with it (internal/query wire.go).
var inputReaders = []string{
	"internal/aiperf", "internal/agentperf", "internal/otlp", "internal/dynamolog",
	"internal/sourcename", "internal/tachometer", "internal/logmetric", "internal/sglang", "internal/tokenspeed",
	"internal/trtllm", "internal/batchobs", "internal/nsys", "internal/nsys/nsystest",
	"internal/metrics", "internal/importer", "internal/importer/join", "internal/lineread",
}

// heavy third-party modules and the packages allowed to use each.
var heavy = map[string][]string{
	"github.com/apache/arrow":   {"internal/tachometer"},
	"github.com/evanw/esbuild":  {"tools/bundle"},
	"github.com/syumai/workers": {"cmd/edge"},
	// The Nsight reader reads exports; the SQL store writes the report's.
	"modernc.org/sqlite":                     {"internal/nsys", "internal/sqlstore"},
	"github.com/modelcontextprotocol/go-sdk": {"cmd/build"},
}

// nativeOnly are packages of the module the page's engine never links:
// the SQL store exists for local readers, not for the browser.
var nativeOnly = []string{"internal/sqlstore"}

// moduleImports maps every package of the module (by its path below the
// module) to the packages it imports, from its non-test files.
func moduleImports(t *testing.T) (root string, imports map[string]map[string]bool) {
	t.Helper()
	root, _ = filepath.Abs("../..")
	imports = map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			imports[pkg][strings.Trim(imp.Path.Value, `"`)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, imports
}

func TestImportDirection(t *testing.T) {
	root, imports := moduleImports(t)
	var pkgs []string
	for pkg := range imports {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		for imp := range imports[pkg] {
			if imp == "syscall/js" && pkg != "wasm" {
				t.Errorf("%s imports syscall/js; only wasm/ may", pkg)
			}
			for prefix, owners := range heavy {
				owned := slices.ContainsFunc(owners, func(o string) bool { return pkg == o || strings.HasPrefix(pkg, o+"/") })
				if strings.HasPrefix(imp, prefix) && !owned {
					t.Errorf("%s imports %s; only %s may", pkg, imp, strings.Join(owners, ", "))
				}
			}
			if slices.Contains(readers, pkg) && strings.Contains(strings.Split(imp, "/")[0], ".") {
				t.Errorf("%s imports %s; the bottom-layer readers import only the standard library", pkg, imp)
			}
			own, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if own == "wasm" || strings.HasPrefix(own, "cmd/") {
				t.Errorf("%s imports %s: nothing imports entry points", pkg, own)
			}
			if strings.HasPrefix(pkg, "tools/") { // developer tools may use any package
				continue
			}
			list, known := allowed[pkg]
			if !known {
				list = []string{"internal/model"}
			}
			if !slices.Contains(readers, pkg) {
				list = append(slices.Clip(list), readers...)
			}
			if own == pkg || strings.HasPrefix(own, pkg+"/") {
				continue
			}
			ok = false
			for _, a := range list {
				if own == a || path.Dir(own) == a {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s, which the dependency table does not allow", pkg, own)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal("not at the module root:", err)
	}
}

// The query engine and the page's wasm reach no input reader, directly or
// through another package.
func TestEngineReachesNoReader(t *testing.T) {
	_, imports := moduleImports(t)
	for _, top := range []string{"internal/query", "wasm"} {
		seen := map[string]string{} // package → the package that imported it
		queue := []string{top}
		for len(queue) > 0 {
			pkg := queue[0]
			queue = queue[1:]
			for imp := range imports[pkg] {
				own, ok := strings.CutPrefix(imp, module)
				if !ok || seen[own] != "" || own == top {
					continue
				}
				seen[own] = pkg
				queue = append(queue, own)
			}
		}
		for _, r := range inputReaders {
			if via, ok := seen[r]; ok {
				t.Errorf("%s depends on the input reader %s (imported by %s)", top, r, via)
			}
		}
	}
}

// What the Go toolchain links into the page's engine: no input reader and
// no heavy format library.
func TestWasmDependencies(t *testing.T) {
	deps := jsDeps(t, "./wasm")
	if len(deps) < 10 {
		t.Fatalf("go list listed only %v", deps)
	}
	for _, dep := range deps {
		own, ok := strings.CutPrefix(dep, module)
		for _, r := range inputReaders {
			if ok && own == r {
				t.Errorf("the wasm engine links the input reader %s", own)
			}
		}
		if ok && slices.Contains(nativeOnly, own) {
			t.Errorf("the wasm engine links %s", own)
		}
		for prefix := range heavy {
			if strings.HasPrefix(dep, prefix) {
				t.Errorf("the wasm engine links %s", dep)
			}
		}
		if dep == "regexp" {
			t.Errorf("the wasm engine links regexp, which only input readers need")
		}
	}
}

// The edge worker links the handler and syumai/workers only: no report
// writer, no query engine, and no regexp, whose patterns each request's
// fresh Go instance would compile again.
func TestEdgeDependencies(t *testing.T) {
	deps := jsDeps(t, "./cmd/edge")
	if !slices.Contains(deps, "github.com/syumai/workers") {
		t.Fatalf("go list listed %v", deps)
	}
	for _, dep := range deps {
		own, ok := strings.CutPrefix(dep, module)
		if ok && own != "internal/edge" && own != "cmd/edge" {
			t.Errorf("the edge worker links %s", own)
		}
		if dep == "regexp" {
			t.Errorf("the edge worker links regexp")
		}
	}
}

// jsDeps is every package pkg links when built for the page (GOOS=js
// GOARCH=wasm), as the Go toolchain lists them.
func jsDeps(t *testing.T, pkg string) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, _ := filepath.Abs("../..")
	cmd := exec.Command(goBin, "list", "-deps", pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}
