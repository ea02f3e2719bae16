package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/web"
)

func build(args []string, stdout io.Writer) (err error) {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	var opt importer.Options
	var out string
	fs.StringVar(&out, "o", "", "report directory to write (replaced atomically)")
	fs.StringVar(&out, "output", "", "same as -o")
	fs.StringVar(&opt.Client, "client", "", "client export to read when the run holds several")
	fs.StringVar(&opt.Phase, "phase", "profiling", "client phase to keep: profiling or all")
	fs.StringVar(&opt.Job, "job", "", "run name shown in the report (default: the run directory's name)")
	fs.BoolVar(&opt.NoOTel, "no-otel", false, "skip OTel exports entirely, even when trace files exist")
	fs.StringVar(&opt.Metrics, "metrics", "", "Tachometer capture (leaf directory or file) instead of <logs>/tachometer/local")
	fs.Func("nsys-sqlite", "Nsight Systems SQLite export, or a directory searched for *.sqlite (repeatable; *.sqlite under the log directory are read too)", func(v string) error {
		opt.NsysSQLite = append(opt.NsysSQLite, v)
		return nil
	})
	fs.Int64Var(&opt.MaxProfileEvents, "max-profile-events", importer.DefaultMaxProfileEvents, "NVTX ranges kept per Nsight profile; beyond it the import is truncated, and says so")
	noSQLite := fs.Bool("no-sqlite", false, "do not write "+report.StoreFile+", the local SQL store for sqlite3, pandas and scripts")
	var tz, cpuProfile, memProfile string
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the build to this file (for slow-build reports)")
	fs.StringVar(&memProfile, "memprofile", "", "write the heap profile taken at the build's highest live heap to this file (for memory reports)")
	fs.StringVar(&tz, "iteration-timezone", "", "IANA timezone of the workers' local log timestamps (without it log metrics are omitted and iterations/batch snapshots stay unaligned)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || out == "" {
		return fmt.Errorf("%w: dsight build RUN -o REPORT", errUsage)
	}
	opt.Run = pos[0]
	if tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return fmt.Errorf("--iteration-timezone: %w", err)
		}
		opt.IterationTimezone = loc
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if memProfile != "" {
		p := startPeakHeapProfile()
		defer func() {
			if werr := p.write(memProfile); err == nil {
				err = werr
			}
		}()
	}
	if err := report.CheckOutput(out, opt.Run); err != nil {
		return err
	}
	res, err := importer.Import(opt)
	if err != nil {
		return err
	}
	m, err := report.Write(res.Dataset, web.Assets(), out, report.Options{Verify: res.Verify, Store: storeWriter(*noSQLite)})
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(out)
	return printJSON(stdout, map[string]any{
		"output":  abs,
		"html":    filepath.Join(abs, report.IndexFile),
		"schema":  m.Schema,
		"summary": m.Summary,
		"unread":  len(m.Unread),
	})
}
