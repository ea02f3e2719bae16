package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

const exportUsage = `usage: dsight export perfetto REPORT -o FILE.pftrace[.gz]

Writes the whole report as a Perfetto trace, for ui.perfetto.dev and Trace
Processor (PerfettoSQL): counter tracks for every metric series, grouped
as Concurrency, Throughput, Per Request, Latency, Totals and Other metrics;
client requests on lanes with their lifecycle stages nested; each worker's
activities, with flows from the client requests they served; Nsight NVTX
ranges on thread tracks. The bytes equal the report page's Download
Perfetto button. A name ending in .gz is gzip-compressed, which Perfetto
opens as it is.`

func exportCmd(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stdout, exportUsage)
		if len(args) == 0 {
			return fmt.Errorf("%w: dsight export perfetto REPORT -o FILE", errUsage)
		}
		return flag.ErrHelp
	}
	if args[0] != "perfetto" {
		return fmt.Errorf("%w: unknown export format %q (known: perfetto)", errUsage, args[0])
	}
	fs := flag.NewFlagSet("export perfetto", flag.ContinueOnError)
	fs.SetOutput(stdout)
	out := fs.String("o", "", "the trace file to write (.pftrace, or .pftrace.gz for gzip)")
	fs.StringVar(out, "output", "", "same as -o")
	fs.Usage = func() { fmt.Fprintln(fs.Output(), exportUsage) }
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 || *out == "" {
		return fmt.Errorf("%w: dsight export perfetto REPORT -o FILE.pftrace[.gz]", errUsage)
	}
	core, dir, err := report.OpenDir(pos[0])
	if err != nil {
		return err
	}
	e, err := query.New(core)
	if err != nil {
		return err
	}
	if err := loadForPerfetto(e, core, dir); err != nil {
		return err
	}
	var trace *counting
	written, err := writeAtomic(*out, func(w io.Writer) error {
		if !strings.HasSuffix(*out, ".gz") {
			trace = &counting{w: w}
			return e.WritePerfetto(trace)
		}
		zw, _ := gzip.NewWriterLevel(w, gzip.DefaultCompression)
		trace = &counting{w: zw}
		if err := e.WritePerfetto(trace); err != nil {
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes; the trace is %d bytes)\n", *out, written, trace.n)
	return nil
}

// loadForPerfetto hands the engine every shard the export names, reading
// them from the report, as the page does before its Download button asks.
func loadForPerfetto(e *query.Engine, core *catalog.Core, dir string) error {
	for round := 0; ; round++ {
		err := e.PerfettoReady()
		var qe *query.Error
		if err == nil || round >= 2 || !errors.As(err, &qe) || qe.Code != query.CodeShardsNeeded {
			return err
		}
		var metric, detail []query.ShardNeed
		for _, n := range qe.Shards {
			if len(n.Series) > 0 {
				metric = append(metric, n)
			} else {
				detail = append(detail, n)
			}
		}
		if err := report.LoadMetricShards(e, core, dir, metric); err != nil {
			return err
		}
		if err := report.LoadDetailShards(e, dir, detail); err != nil {
			return err
		}
	}
}

// counting counts the bytes written through it.
type counting struct {
	w io.Writer
	n int64
}

func (c *counting) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeAtomic writes path through a temporary file in its directory, so a
// failed export never leaves a truncated trace behind. It returns the
// bytes the file holds.
func writeAtomic(path string, write func(io.Writer) error) (written int64, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dsight-export-*")
	if err != nil {
		return 0, err
	}
	file := &counting{w: tmp}
	buf := bufio.NewWriterSize(file, 1<<20)
	err = write(buf)
	if err == nil {
		err = buf.Flush()
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return 0, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	return file.n, nil
}
