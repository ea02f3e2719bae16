package main

import (
	"fmt"
	"io"
)

// The commands defined in their own files (export.go, mcp.go) join the
// command table here, in the order `dsight` lists them.
func init() {
	register(&command{name: "export", summary: "write the whole report as a Perfetto trace (.pftrace) for ui.perfetto.dev and Trace Processor",
		help: func(w io.Writer) { fmt.Fprintln(w, exportUsage); fmt.Fprint(w, exitCodes) },
		run:  func(args []string, stdout, _ io.Writer) error { return exportCmd(args, stdout) }})
	register(&command{name: "mcp", summary: "serve the read-only " + mcpToolName + " tool over stdio (Model Context Protocol) for coding agents",
		help: func(w io.Writer) {
			fmt.Fprintf(w, "usage: dsight mcp REPORT\n\nServes the read-only %s tool over stdio (Model Context Protocol) for the report\ndirectory REPORT: the same kinds, arguments and answers as `dsight query`.\nThe report is reopened when it is rebuilt. See docs/agents.md for a client configuration.\n", mcpToolName)
			fmt.Fprint(w, exitCodes)
		},
		run: func(args []string, stdout, _ io.Writer) error { return mcpCmd(args, stdout) }})
}
