package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dsight/dsight/internal/query"
)

// isTerminal reports whether w is a character device (a terminal), the
// only place progress lines and sentence errors are for.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// inCI reports whether the process runs under a CI system, whose logs
// are terminals to no one.
func inCI() bool {
	return os.Getenv("CI") != "" && os.Getenv("CI") != "false"
}

// writeSentence prints a failure for a person: one "dsight: …" line per
// line of the message, with the engine's code when a query failed, and
// what to do for the codes that have an answer.
func writeSentence(w io.Writer, err error) {
	msg := strings.TrimSpace(err.Error())
	var qe *query.Error
	if errors.As(err, &qe) {
		msg += " (" + string(qe.Code) + ")"
		switch qe.Code {
		case query.CodeBadArgs:
			msg += "\nRun \"dsight help KIND\" for the flags a kind takes."
		case query.CodeNotFound:
			msg += "\nList what the report holds with \"dsight query REPORT requests\", \"workers\" or \"metric_families\"."
		}
	}
	for _, line := range strings.Split(msg, "\n") {
		fmt.Fprintln(w, "dsight: "+line)
	}
}

// progress prints one line per build phase on a terminal: the phase and
// the time since the build started. A nil *progress prints nothing.
type progress struct {
	w     io.Writer
	start time.Time
}

// newProgress returns a progress printer for w, or nil when w is not a
// terminal, the build runs in CI or quiet is set.
func newProgress(w io.Writer, quiet bool) *progress {
	if quiet || inCI() || !isTerminal(w) {
		return nil
	}
	return forceProgress(w)
}

func forceProgress(w io.Writer) *progress {
	return &progress{w: w, start: time.Now()}
}

func (p *progress) phase(name string) {
	if p == nil {
		return
	}
	fmt.Fprintf(p.w, "dsight: %5.1fs  %s…\n", time.Since(p.start).Seconds(), name)
}

func (p *progress) done(what string) {
	if p == nil {
		return
	}
	fmt.Fprintf(p.w, "dsight: %5.1fs  %s\n", time.Since(p.start).Seconds(), what)
}
