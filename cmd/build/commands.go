package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// command is one `dsight COMMAND`: its one-line summary for the command
// list, its --help text and what it runs. The table below is the only
// place that lists commands; `dsight`, `dsight help` and the dispatch in
// run read it, the way pprof keeps its commands and their help in one
// table. A command in another file adds itself with register from an
// init function.
type command struct {
	name    string
	summary string
	// help writes the command's full help (what `dsight help NAME` and
	// `dsight NAME --help` print).
	help func(w io.Writer)
	run  func(args []string, stdout, stderr io.Writer) error
}

var commands = []*command{
	{name: "build", summary: "read a benchmark run and write a report directory (index.html and its data)",
		help: writeBuildHelp,
		run:  func(args []string, stdout, stderr io.Writer) error { return buildTo(args, stdout, stderr) }},
	{name: "query", summary: "answer a question about a report as JSON (summary, requests, metrics, nsys, …)",
		help: func(w io.Writer) { writeQueryHelp(w, queryFlags()) },
		run:  func(args []string, stdout, _ io.Writer) error { return queryCmd(args, stdout) }},
	{name: "publish", summary: "copy a report into an edge bucket directory and print its share URL",
		help: simpleHelp("dsight publish REPORT --to DIR [--base-url URL]",
			"Adds REPORT to the bucket directory DIR (nothing in it is removed) and prints what it wrote.",
			"  --to DIR          bucket directory to add the report to (required)",
			"  --base-url URL    the edge's URL, to print a full share URL"),
		run: func(args []string, stdout, _ io.Writer) error { return publishCmd(args, stdout) }},
	{name: "link", summary: "mint the short link of a saved view of a published report",
		help: simpleHelp("dsight link REPORT --view '#view=…' --to DIR [--base-url URL]",
			"Stores the view under a short id in the bucket DIR and prints the id and its path.",
			"  --view FRAGMENT   the view: its \"#view=…\" fragment or the whole view link (required)",
			"  --to DIR          bucket directory the report was published to (required)",
			"  --base-url URL    the edge's URL, to print a full short link"),
		run: func(args []string, stdout, _ io.Writer) error { return linkCmd(args, stdout) }},
	// Serving commands (an MCP server, say) register themselves from
	// their own files, after the commands above.
	{name: "version", summary: "print the version, the report format and the browser API version",
		help: simpleHelp("dsight version   (also: dsight --version)", "Prints the version line and exits 0."),
		run: func(_ []string, stdout, _ io.Writer) error {
			_, err := fmt.Fprintln(stdout, versionLine())
			return err
		}},
	{name: "help", summary: "explain a command or a query kind: dsight help build, dsight help requests",
		help: simpleHelp("dsight help [COMMAND|KIND]", "Without an argument, lists the commands. With one, explains a command (build, query, …) or a query kind (summary, requests, metrics, …).")},
}

// help reads the table it is in, so its run is set once the table is.
func init() {
	lookupCommand("help").run = func(args []string, stdout, _ io.Writer) error { return helpCmd(args, stdout) }
}

// register adds a command defined in another file; it goes before
// version and help, which close the list.
func register(c *command) {
	n := len(commands) - 2
	commands = append(commands[:n], append([]*command{c}, commands[n:]...)...)
}

func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func versionLine() string {
	return fmt.Sprintf("dsight (report format %d, browser API 3.1)", report.FormatVersion)
}

func simpleHelp(usage, about string, flags ...string) func(io.Writer) {
	return func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s\n\n%s\n", usage, about)
		if len(flags) > 0 {
			fmt.Fprintf(w, "\nflags:\n%s\n", strings.Join(flags, "\n"))
		}
		fmt.Fprint(w, exitCodes)
	}
}

const exitCodes = `
exit codes:
  0  success
  1  bad input: a run or report that cannot be read, a question the report cannot answer
  2  bad usage: an unknown command or flag, a missing argument
`

// writeOverview is what `dsight` and `dsight help` print.
func writeOverview(w io.Writer) {
	fmt.Fprint(w, `dsight turns an LLM-inference benchmark run into an offline trace explorer:
one index.html you open from disk or any static host, and a CLI that answers
the same questions as JSON.

usage: dsight COMMAND [ARGS] [FLAGS]

commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
first steps:
  dsight build runs/job-42 -o report          read the run, write report/index.html
  dsight query report summary                 what the report holds
  dsight query report requests --from 29 --to 34 --min-ttft-ms 1000 --limit 20

Run "dsight help COMMAND" or "dsight COMMAND --help" for a command's flags,
and "dsight help KIND" for one query kind.
`)
}

// helpCmd is `dsight help [COMMAND|KIND]`.
func helpCmd(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		writeOverview(stdout)
		return nil
	}
	if len(args) > 1 {
		return fmt.Errorf("%w: dsight help takes one command or query kind; got %d arguments", errUsage, len(args))
	}
	if c := lookupCommand(args[0]); c != nil {
		c.help(stdout)
		return nil
	}
	if op := query.Lookup(args[0]); op != nil && !op.Internal {
		writeKindHelp(stdout, op)
		return nil
	}
	return fmt.Errorf("%w: %q is neither a command (%s) nor a query kind (%s)", errUsage, args[0],
		strings.Join(commandNames(), ", "), strings.Join(query.Names(false), ", "))
}

func commandNames() []string {
	out := make([]string, len(commands))
	for i, c := range commands {
		out[i] = c.name
	}
	return out
}

// writeKindHelp explains one query kind: what it answers and every flag
// it takes, from the op table.
func writeKindHelp(w io.Writer, op *query.Op) {
	fmt.Fprintf(w, "usage: dsight query REPORT %s", op.Name)
	for _, g := range op.Args {
		if g.Required {
			fmt.Fprintf(w, " --%s%s", kindFlag(g), placeholders[g.Type])
		}
	}
	if len(op.Args) > 0 {
		fmt.Fprint(w, " [flags]")
	}
	fmt.Fprintf(w, "\n\n%s.\n", upperFirst(op.Help))
	if len(op.Args) == 0 {
		fmt.Fprint(w, "\nIt takes no flags.\n")
	} else {
		fmt.Fprint(w, "\nflags:\n")
		for _, g := range op.Args {
			fmt.Fprintf(w, "  --%s%s\n        %s\n", kindFlag(g), placeholders[g.Type], describeArg(g))
		}
	}
	if ex := kindExamples[op.Name]; ex != "" {
		fmt.Fprintf(w, "\nexample:\n  dsight query report %s %s\n", op.Name, ex)
	} else {
		fmt.Fprintf(w, "\nexample:\n  dsight query report %s\n", op.Name)
	}
	fmt.Fprint(w, "\nTimes are seconds from the report's origin (summary: meta.origin_ns). A flag the\nkind does not take is refused (bad_args), never ignored.\n")
	fmt.Fprint(w, exitCodes)
}

// kindFlag is how help spells g: the alias when it has one (--request
// reads better than --id).
func kindFlag(g query.Arg) string {
	if g.Alias != "" {
		return g.Alias
	}
	return g.Flag()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// kindExamples are the flags of one typical question per kind.
var kindExamples = map[string]string{
	"requests":        "--from 29 --to 34 --worker decode-0 --limit 20",
	"request":         "--request REQUEST_ID",
	"lifecycle":       "--request REQUEST_ID",
	"sessions":        "--sort ttft --limit 10",
	"metrics":         "--name trtllm_num_requests_running --worker decode-0 --points",
	"metric_series":   "--worker decode-0",
	"profiles":        "--worker decode-0",
	"nsys":            "--from 32 --to 33 --worker decode-0 --rank 0",
	"cpu":             "--from 32 --to 33 --profile 0",
	"iterations":      "--from 32 --to 33 --worker decode-0 --rank 0",
	"server_spans":    "--from 0 --to 10 --limit 50",
	"sources":         "--limit 20",
	"source":          "--id 0",
	"workers":         "--role decode",
	"metric_families": "",
}
