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
//	dsight help [COMMAND|KIND]
//	dsight version
//
// This file only dispatches commands (commands.go is their table) and maps
// errors to exit codes: 0 ok, 1 bad input, 2 bad usage.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dsight/dsight/internal/query"
)

var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches through the command table (commands.go) and maps errors to
// exit codes: 0 ok, 1 bad input, 2 bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeOverview(stderr)
		return 2
	}
	asJSON := wantsJSON(args, stderr)
	var err error
	switch name := args[0]; name {
	case "-h", "--help", "-help":
		writeOverview(stdout)
	case "--version", "-version", "-v":
		fmt.Fprintln(stdout, versionLine())
	default:
		c := lookupCommand(name)
		if c == nil {
			err = fmt.Errorf("%w: unknown command %q; the commands are %s (run \"dsight help\")", errUsage, name, strings.Join(commandNames(), ", "))
			break
		}
		if name != "help" && len(args) == 2 && (args[1] == "-h" || args[1] == "--help" || args[1] == "-help") {
			c.help(stdout)
			break
		}
		err = c.run(args[1:], stdout, stderr)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		if asJSON {
			writeError(stderr, err)
		} else {
			fmt.Fprintln(stderr, "dsight: "+strings.TrimPrefix(err.Error(), "usage: "))
		}
		return 2
	default:
		if asJSON {
			writeError(stderr, err)
		} else {
			writeSentence(stderr, err)
		}
		return 1
	}
}

// wantsJSON says whether failures are written as JSON records: with
// --json, or when stderr is not a terminal (a script reads it). On a
// terminal they are sentences.
func wantsJSON(args []string, stderr io.Writer) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" || a == "-json" {
			return true
		}
	}
	return !isTerminal(stderr)
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
