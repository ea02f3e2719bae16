package main

import "io"

// The commands defined in their own files (export.go, mcp.go) join the
// command table here, in the order `dsight` lists them.
func init() {
	register(&command{name: "export", summary: "write the whole report as a Perfetto trace (.pftrace) for ui.perfetto.dev and Trace Processor",
		help: simpleHelp("dsight export perfetto REPORT -o FILE.pftrace[.gz]",
			"Writes the whole report as a Perfetto trace, for ui.perfetto.dev and Trace\n"+
				"Processor (PerfettoSQL): counter tracks for every metric series (captured and\n"+
				"derived), grouped as Concurrency, Throughput, Per Request, Latency, Totals and\n"+
				"Other metrics; client requests on lanes with their lifecycle stages nested;\n"+
				"each worker's activities, with flows from the client requests they served;\n"+
				"Nsight NVTX ranges on thread tracks. The bytes equal the page's Download\n"+
				"Perfetto button. A name ending in .gz is gzip-compressed (Perfetto opens it).",
			"  -o, --output FILE   the trace file to write (.pftrace, or .pftrace.gz for gzip)"),
		run: func(args []string, stdout, _ io.Writer) error { return exportCmd(args, stdout) }})
	register(&command{name: "mcp", summary: "serve the read-only " + mcpToolName + " tool over stdio (Model Context Protocol) for coding agents",
		help: simpleHelp("dsight mcp REPORT",
			"Serves the read-only "+mcpToolName+" tool over stdio (Model Context Protocol) for\n"+
				"the report directory REPORT: the same kinds, arguments and answers as\n"+
				"`dsight query`. The report is reopened when it is rebuilt. docs/agents.md\n"+
				"shows a client configuration."),
		run: func(args []string, stdout, _ io.Writer) error { return mcpCmd(args, stdout) }})
}
