package main

import (
	"bytes"
	"encoding/json"
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
	fs.Usage = func() { fmt.Fprintln(fs.Output(), exportUsage) }
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 || *out == "" {
		return fmt.Errorf("%w: dsight export perfetto REPORT -o FILE.pftrace[.gz]", errUsage)
	}
	trace, err := exportPerfetto(pos[0])
	if err != nil {
		return err
	}
	payload := trace
	if strings.HasSuffix(*out, ".gz") {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression)
		if _, err := zw.Write(trace); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		payload = b.Bytes()
	}
	if err := writeFileAtomic(*out, payload); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes; %d uncompressed)\n", *out, len(payload), len(trace))
	return nil
}

// exportPerfetto asks the report's engine for the trace, handing over the
// shards it names, exactly as the page does before its Download button
// saves the bytes.
func exportPerfetto(path string) ([]byte, error) {
	core, dir, err := report.OpenDir(path)
	if err != nil {
		return nil, err
	}
	e, err := query.New(core)
	if err != nil {
		return nil, err
	}
	return perfettoFrom(e, core, dir)
}

func perfettoFrom(e *query.Engine, core *catalog.Core, dir string) ([]byte, error) {
	req := []byte(`{"op":"perfetto"}`)
	for round := 0; ; round++ {
		out, binary := e.AppendAnswer(nil, req)
		if binary {
			return out, nil
		}
		var env struct {
			Code   query.Code        `json:"code"`
			Error  string            `json:"error"`
			Shards []query.ShardNeed `json:"shards"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			return nil, err
		}
		var err error = &query.Error{Code: env.Code, Message: env.Error, Shards: env.Shards}
		var qe *query.Error
		if round >= 2 || !errors.As(err, &qe) || qe.Code != query.CodeShardsNeeded {
			return nil, err
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
			return nil, err
		}
		if err := report.LoadDetailShards(e, dir, detail); err != nil {
			return nil, err
		}
	}
}

// writeFileAtomic writes path through a temporary file in its directory,
// so a failed export never leaves a truncated trace behind.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dsight-export-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
