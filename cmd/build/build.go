package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/sqlstore"
	"github.com/dsight/dsight/web"
)

// build is `dsight build RUN -o REPORT`: it imports the run, writes the
// report, and prints a summary (JSON with --json). Its flags are declared
// in buildFlagSet and explained in writeBuildHelp (buildhelp.go).
func build(args []string, stdout io.Writer) error { return buildTo(args, stdout, io.Discard) }

// buildTo is build with its progress lines going to stderr (when it is a
// terminal).
func buildTo(args []string, stdout, stderr io.Writer) (err error) {
	var opt importer.Options
	var out, tz, cpuProfile, memProfile string
	var asJSON, quiet, noSQLite bool
	fs := buildFlagSet(&opt, &out, &tz, &cpuProfile, &memProfile, &asJSON, &quiet, &noSQLite)
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		writeBuildHelp(stdout)
		return err
	}
	if err != nil {
		return fmt.Errorf("%w: build: %v (run \"dsight build --help\")", errUsage, err)
	}
	if len(pos) != 1 || out == "" {
		return fmt.Errorf("%w: build needs one RUN directory and -o REPORT: dsight build RUN -o REPORT (run \"dsight build --help\")", errUsage)
	}
	prog := newProgress(stderr, quiet || asJSON)
	if prog != nil {
		opt.Progress = prog.phase
	}
	return buildReport(opt, pos[0], out, tz, cpuProfile, memProfile, asJSON, noSQLite, prog, stdout)
}

// buildFlagSet declares build's flags; every one is explained in
// writeBuildHelp (a test checks both list the same).
func buildFlagSet(opt *importer.Options, out, tz, cpuProfile, memProfile *string, asJSON, quiet, noSQLite *bool) *flag.FlagSet {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(out, "o", "", "report directory to write (replaced atomically)")
	fs.StringVar(out, "output", "", "same as -o")
	fs.StringVar(&opt.Client, "client", "", "client export to read when the run holds several")
	fs.StringVar(&opt.Phase, "phase", "profiling", "client phase to keep: profiling or all")
	fs.StringVar(&opt.Job, "job", "", "run name shown in the report (default: the run directory's name)")
	fs.BoolVar(&opt.NoOTel, "no-otel", false, "skip OTel exports entirely, even when trace files exist")
	fs.StringVar(&opt.SpillDir, "spill-dir", "", "directory for the OTel spans the build keeps on disk between its passes, about the OTel input's size, and a third more for the SQL store's evidence rows (default: the system temp dir, "+os.TempDir()+")")
	fs.StringVar(&opt.Metrics, "metrics", "", "Tachometer capture (leaf directory or file) instead of <logs>/tachometer/local")
	fs.Func("nsys-sqlite", "Nsight Systems SQLite export, or a directory searched for *.sqlite (repeatable; *.sqlite under the log directory are read too)", func(v string) error {
		opt.NsysSQLite = append(opt.NsysSQLite, v)
		return nil
	})
	fs.Int64Var(&opt.MaxProfileEvents, "max-profile-events", importer.DefaultMaxProfileEvents, "NVTX ranges kept per Nsight profile; beyond it the import is truncated, and says so")
	fs.BoolVar(noSQLite, "no-sqlite", false, "do not write "+report.StoreFile+", the local SQL store for sqlite3, pandas and scripts")
	fs.StringVar(cpuProfile, "cpuprofile", "", "write a CPU profile of the build to this file (for slow-build reports)")
	fs.StringVar(memProfile, "memprofile", "", "write the heap profile taken at the build's highest live heap to this file (for memory reports)")
	fs.StringVar(tz, "iteration-timezone", "", "IANA timezone of the workers' local log timestamps (without it log metrics are omitted and iterations/batch snapshots stay unaligned)")
	fs.BoolVar(asJSON, "json", false, "print the summary as JSON (and failures as JSON records)")
	fs.BoolVar(quiet, "q", false, "no progress lines on stderr")
	fs.BoolVar(quiet, "quiet", false, "same as -q")
	return fs
}

func buildReport(opt importer.Options, run, out, tz, cpuProfile, memProfile string, asJSON, noSQLite bool, prog *progress, stdout io.Writer) (err error) {
	opt.Run = run
	if tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			// A zone name the flag cannot take is bad usage, like a bad flag.
			return fmt.Errorf("%w: --iteration-timezone %q is not an IANA zone name such as UTC or Europe/Berlin (%v)", errUsage, tz, err)
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
	defer boundBuildHeap()()
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
	// The stage exists before the import: a target another build holds
	// fails at once, not after the import.
	stage, err := report.Begin(out, opt.Run)
	if err != nil {
		return err
	}
	defer stage.Close()
	// The store's evidence rows are encoded beside the join, from the
	// evidence it decodes anyway.
	var rows *sqlstore.EvidenceRows
	if !noSQLite {
		rows = sqlstore.NewEvidenceRows(opt.SpillDir)
		defer rows.Close()
		opt.EvidenceTap = rows
	}
	res, err := importer.Import(opt)
	if err != nil {
		return err
	}
	prog.phase("writing the report to " + out)
	m, err := stage.Write(res.Dataset, web.Assets(), report.Options{Verify: res.Verify, Store: storeWriter(noSQLite, rows)})
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(out)
	prog.done("done")
	if !asJSON {
		return writeBuildSummary(stdout, m, len(res.Dataset.MetricFamilies), abs)
	}
	return printJSON(stdout, map[string]any{
		"output":  abs,
		"html":    filepath.Join(abs, report.IndexFile),
		"schema":  m.Schema,
		"summary": m.Summary,
		"unread":  len(m.Unread),
	})
}
