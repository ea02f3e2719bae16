// Command dsight builds offline trace-explorer reports from LLM-inference
// benchmark runs and answers questions about them.
//
//	dsight build RUN -o REPORT [--client PATH] [--phase profiling|all] [--job NAME] [--no-otel]
//	             [--metrics PATH] [--iteration-timezone IANA]
//	dsight query REPORT [KIND] [--from S] [--to S] [--request ID] [--limit N] …
//	dsight query REPORT metrics [--name N] [--worker W] [--rank R] [--from S --to S] [--points]
//	dsight publish REPORT --to DIR [--base-url URL]
//	dsight link REPORT --view '#view=…' --to DIR [--base-url URL]
//	dsight mcp REPORT
//	dsight export perfetto REPORT -o FILE.pftrace[.gz]
//
// This file only wires flags to internal packages and maps errors to exit
// codes: 0 ok, 1 failure, 2 usage.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/dsight/dsight/internal/report"
	"io"
	"os"

	"github.com/dsight/dsight/internal/query"
)

var errUsage = errors.New("usage")

const usage = `usage:
  dsight build RUN -o REPORT [--client PATH] [--phase profiling|all] [--job NAME] [--no-otel]
               [--metrics PATH] [--iteration-timezone IANA]
  dsight query REPORT [KIND] [flags]    (dsight query -h lists kinds and flags)
  dsight publish REPORT --to DIR [--base-url URL]
  dsight link REPORT --view '#view=…' --to DIR [--base-url URL]
  dsight mcp REPORT                     (read-only query_trace tool over stdio, for agents)
  dsight export perfetto REPORT -o FILE.pftrace[.gz]
  dsight version`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "build":
		err = build(args[1:], stdout)
	case "query":
		err = queryCmd(args[1:], stdout)
	case "publish":
		err = publishCmd(args[1:], stdout)
	case "link":
		err = linkCmd(args[1:], stdout)
	case "mcp":
		err = mcpCmd(args[1:], stdout)
	case "export":
		err = exportCmd(args[1:], stdout)
	case "version":
		fmt.Fprintf(stdout, "dsight (report format %d, browser API 3.1)\n", report.FormatVersion)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
	default:
		fmt.Fprintf(stderr, "unknown command %q\n%s\n", args[0], usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, err)
		return 2
	default:
		writeError(stderr, err)
		return 1
	}
}

// writeError prints a failure as JSON; a query's carries the engine's code.
func writeError(w io.Writer, err error) {
	rec := map[string]any{"ok": false, "error": err.Error()}
	var qe *query.Error
	if errors.As(err, &qe) {
		rec["code"] = qe.Code
	}
	b, _ := json.Marshal(rec)
	fmt.Fprintln(w, string(b))
}

// parseInterleaved lets flags follow positional arguments, as in
// `dsight build RUN -o REPORT`.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
