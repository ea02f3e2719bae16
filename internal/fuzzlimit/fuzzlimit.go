// Package fuzzlimit owns the per-input time limit of every fuzz target. Go's
// fuzzer has none: an input that makes a decoder spin keeps its worker busy
// until the fuzz time runs out, and the run passes with a handful of
// executions. A target calls Start first; an input that runs past the limit
// crashes the worker with every goroutine's stack, so the fuzzer records it
// as a failing input.
//
// It imports only the standard library.
package fuzzlimit

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// Default is the limit per input: a parser handles a fuzz input (a few KB)
// in milliseconds; ten seconds is a hang even on a loaded machine.
const Default = 10 * time.Second

// Limit is Default, or DSIGHT_FUZZ_INPUT_LIMIT (a Go duration) when set.
func Limit() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("DSIGHT_FUZZ_INPUT_LIMIT")); err == nil && d > 0 {
		return d
	}
	return Default
}

// TB is the part of testing.TB Start uses.
type TB interface{ Name() string }

// Start arms the limit for one input and returns the function that disarms
// it: `defer fuzzlimit.Start(t)()`.
func Start(t TB) (stop func()) {
	limit := Limit()
	name := t.Name()
	timer := time.AfterFunc(limit, func() {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		fmt.Fprintf(os.Stderr, "%s: one input ran longer than %v: a hang\n%s\n", name, limit, buf[:n])
		os.Exit(2)
	})
	return func() { timer.Stop() }
}
