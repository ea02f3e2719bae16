package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// writeBuildHelp is `dsight build --help`: what RUN is, what is found in
// it, examples, then every flag buildFlagSet declares, in GNU spelling.
func writeBuildHelp(w io.Writer) {
	fmt.Fprint(w, `usage: dsight build RUN -o REPORT [flags]

Reads one benchmark run and writes REPORT, a directory holding index.html and
its data. Open REPORT/index.html from disk or any static host; it needs no
server. An existing REPORT is replaced only once the new one is complete.

RUN is the run directory: the one holding logs/, or the log directory itself.
Found in it, by name, without any flag:
  client export      profile_export.jsonl (AIPerf, AgentX: also under agentic/*/ or
                     artifacts/*/) or requests.jsonl (AgentPerf); pick one with --client
                     when there are several
  frontend logs      <host>_frontend_<i>.out
  worker logs        <host>_<prefill|decode|agg>_w<i>….out (SGLang, TokenSpeed, TRT-LLM)
  OTel exports       otel/traces.jsonl and otel/*/traces.jsonl
  Nsight exports     every *.sqlite in the run (and each --nsys-sqlite)
  Tachometer metrics tachometer/local/… (or --metrics)
A missing source simply has no view. Files no reader takes are listed as unread
in REPORT/manifest.json and counted in the summary.

examples:
  dsight build runs/job-42 -o report
  dsight build runs/job-42/logs -o report --iteration-timezone UTC --phase all
  dsight build runs/job-42 -o report --nsys-sqlite profiles/ --json > build.json

flags:
`)
	writeFlags(w, buildFlagSet(&importer.Options{}, new(string), new(string), new(string), new(string), new(bool), new(bool), new(bool)))
	fmt.Fprint(w, `
output: a summary on stdout (requests, sessions, workers, metric families,
profiles, each warning, the index.html path), or the manifest's summary as JSON
with --json. On a terminal stderr shows one line per build phase; --quiet, CI=1
or a redirected stderr keep it silent.
`)
	fmt.Fprint(w, exitCodes)
}

// flagPlaceholders name a flag's value in help; flags not listed take a
// word from their type.
var flagPlaceholders = map[string]string{
	"o": "DIR", "output": "DIR", "client": "PATH", "phase": "profiling|all", "job": "NAME",
	"metrics": "PATH", "spill-dir": "DIR", "nsys-sqlite": "PATH", "max-profile-events": "N", "cpuprofile": "FILE",
	"memprofile": "FILE", "iteration-timezone": "IANA",
}

// writeFlags lists fs's flags as "-o, --output DIR", pairing a one-letter
// flag with the long one whose usage is "same as -x".
func writeFlags(w io.Writer, fs *flag.FlagSet) {
	short := map[string]string{} // long name → its one-letter alias
	var shown []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			return
		}
		if alias, ok := strings.CutPrefix(f.Usage, "same as -"); ok && len(alias) == 1 {
			short[alias] = f.Name
			return
		}
		shown = append(shown, f)
	})
	// "-o" carries the usage and "--output" says "same as -o": show the
	// usage under the long name.
	byAlias := map[string]string{}
	for alias, long := range short {
		byAlias[long] = alias
	}
	sort.Slice(shown, func(i, j int) bool { return shown[i].Name < shown[j].Name })
	// In name order: ranged over the map, the help changed from run to run.
	var paired []*flag.Flag
	for long, alias := range byAlias {
		f := fs.Lookup(alias)
		paired = append(paired, &flag.Flag{Name: long, Usage: f.Usage, DefValue: f.DefValue, Value: f.Value})
	}
	sort.Slice(paired, func(i, j int) bool { return paired[i].Name < paired[j].Name })
	shown = append(paired, shown...)
	sort.SliceStable(shown, func(i, j int) bool { return byAlias[shown[i].Name] != "" && byAlias[shown[j].Name] == "" })
	for _, f := range shown {
		name := "    --" + f.Name
		if a := byAlias[f.Name]; a != "" {
			name = "-" + a + ", --" + f.Name
		}
		if ph := placeholder(f); ph != "" {
			name += " " + ph
		}
		usage := f.Usage
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  %s\n        %s\n", name, usage)
	}
}

func placeholder(f *flag.Flag) string {
	if p, ok := flagPlaceholders[f.Name]; ok {
		return p
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return ""
	}
	kind, _ := flag.UnquoteUsage(f)
	switch kind {
	case "int", "int64", "uint":
		return "N"
	case "":
		return ""
	}
	return "VALUE"
}

// writeBuildSummary is build's human output: the counts a person checks
// first, each warning on its own line, then where the report is.
func writeBuildSummary(w io.Writer, m *report.Manifest, families int, dir string) error {
	s, ok := m.Summary.(query.Summary)
	if !ok {
		return printJSON(w, m.Summary)
	}
	c := s.Counts
	fmt.Fprintf(w, "Built the report of %s (%s, %.3f s).\n", s.Meta.Job, s.Meta.StartUTC, s.Meta.Duration)
	rows := []struct {
		name string
		n    int
	}{{"requests", c.Requests}, {"sessions", c.Sessions}, {"workers", c.Workers}, {"metric families", families},
		{"metric series", c.Metrics}, {"profiles", c.Profiles}, {"iterations", c.Iterations}, {"sources read", len(m.Sources)}}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-16s %d\n", r.name, r.n)
	}
	if n := len(m.Unread); n > 0 {
		fmt.Fprintf(w, "  %-16s %d (listed in %s)\n", "files not read", n, filepath.Join(dir, "manifest.json"))
	}
	fmt.Fprintf(w, "  %-16s %d\n", "warnings", len(s.Meta.Warnings))
	for _, warn := range s.Meta.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "Open: %s\n", filepath.Join(dir, report.IndexFile))
	_, err := fmt.Fprintf(w, "Ask:  dsight query %s summary\n", dir)
	return err
}
