package logmetric

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Dump writes a canonical, line-oriented text form of the result for golden
// tests and debugging. Strings from logs are quoted, so they cannot forge
// structure.
func (r *Result) Dump(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "lines %d\n", r.Lines)
	fmt.Fprintf(bw, "unaligned %d\n", r.Unaligned)
	fmt.Fprintf(bw, "long_lines %d\n", r.LongLines)
	if r.Rejected > 0 || r.Conflicts > 0 { // absent from the goldens that have none
		fmt.Fprintf(bw, "rejected %d %q\nconflicts %d %q\n", r.Rejected, r.FirstRejected, r.Conflicts, r.FirstConflict)
	}
	for _, msg := range r.Warnings {
		fmt.Fprintf(bw, "warning %q\n", msg)
	}
	if r.Window == nil {
		fmt.Fprintf(bw, "window none\n")
	} else {
		fmt.Fprintf(bw, "window %s .. %s\n", formatNS(r.Window.StartNS), formatNS(r.Window.EndNS))
	}
	for i, s := range r.Series {
		d := s.Definition
		fmt.Fprintf(bw, "series %d %s\n", i, d.Name)
		fmt.Fprintf(bw, "  title=%q unit=%q temporal=%s component=%q group=%q\n", d.Title, d.Unit, d.Temporal, d.Component, d.Group)
		fmt.Fprintf(bw, "  generator=%q source=%d path=%q worker=%q host=%q role=%q\n",
			s.Generator, s.Source.SourceID, s.Source.Path, s.Source.Worker, s.Source.Host, s.Source.Role)
		fmt.Fprintf(bw, "  rank=%s process=%q labels=%s resolution=%ss\n",
			s.Rank, s.Process, formatLabels(s.Labels), strconv.FormatFloat(s.TimeResolution(), 'g', -1, 64))
		if ref := s.Reference; ref != nil {
			fmt.Fprintf(bw, "  reference name=%s label=%q series=%d\n", ref.Name, ref.Label, ref.Series)
		}
		for _, p := range s.Points {
			v := "null"
			if !p.Null {
				v = strconv.FormatFloat(p.Value, 'g', -1, 64)
			}
			fmt.Fprintf(bw, "  %s %s @%d:%d\n", formatNS(p.TimeNS), v, p.SourceID, p.Line)
		}
	}
	return bw.Flush()
}

func formatLabels(labels []Label) string {
	if len(labels) == 0 {
		return "{}"
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = strconv.Quote(l.Key) + "=" + strconv.Quote(l.Value)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func formatNS(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}
