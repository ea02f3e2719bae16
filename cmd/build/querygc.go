package main

import (
	"math"
	"runtime/debug"
)

// oneShotHeapLimit is the heap a one-shot question may grow to before the
// collector runs at all: several times what a 100,000-request core's open
// allocates (54 MB AIPerf-only), far below what a machine that built the
// report has.
const oneShotHeapLimit = 1 << 30

// collectOnlyPastLimit turns the collector off for a one-shot question,
// up to oneShotHeapLimit (or the GOMEMLIMIT the user set, if lower). A
// question decodes the core once and keeps all of it until it prints, so
// every collection during the decode rescans live data and frees nothing:
// at 100,000 requests that was a fifth of the question's CPU time. The
// page's engine and the MCP server live on and keep the collector.
// restore puts both settings back.
func collectOnlyPastLimit() (restore func()) {
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 || limit > oneShotHeapLimit {
		debug.SetMemoryLimit(oneShotHeapLimit)
	}
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
