package synth

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/dsight/dsight/internal/tachometer"
)

// Summary describes a written run.
type Summary struct {
	Dir         string `json:"dir"`
	Seed        uint64 `json:"seed"`
	Concurrency int    `json:"concurrency"`
	Counts
	StartNS   int64    `json:"start_ns"`
	EndNS     int64    `json:"end_ns"`
	DurationS float64  `json:"duration_s"`
	Sources   []string `json:"sources"`
	Timezone  string   `json:"timezone"`
	// Spans counts the spans of the trace export (once, without the
	// replica); Untraced the requests that exported none.
	Spans    int64 `json:"otel_spans,omitempty"`
	Untraced int   `json:"otel_untraced_requests,omitempty"`
	// MetricRows counts final.parquet's rows.
	MetricRows int64    `json:"tachometer_rows,omitempty"`
	Oddities   []Oddity `json:"oddities,omitempty"`
	Files      []File   `json:"files"`
	Bytes      int64    `json:"bytes"`
}

// File is one written source file.
type File struct {
	Path  string `json:"path"` // relative to Summary.Dir, slash-separated
	Kind  string `json:"kind"`
	Bytes int64  `json:"bytes"`
	Lines int64  `json:"lines"`          // text files
	Rows  int64  `json:"rows,omitempty"` // capture files
}

// File kinds.
const (
	KindAIPerf            = "aiperf"
	KindAgentPerfRequests = "agentperf-requests"
	KindAgentPerfManifest = "agentperf-manifest"
	KindAgentPerfAnalysis = "agentperf-analysis"
	KindFrontend          = "frontend"
	KindOTel              = "otel"
	KindWorker            = "worker"
	KindTachometerFinal   = "tachometer-final"
	KindTachometerTail    = "tachometer-tail"
	KindTachometerConfig  = "tachometer-config"
)

// output is one file to write; write fills in the lines or rows.
type output struct {
	kind, rel string
	write     func(w io.Writer, f *File) error
	// toPath writes a file that must be written by name (SQLite) instead.
	toPath func(path string, f *File) error
}

// WriteRun plans the run c describes and writes every selected source
// under dir, creating directories as needed. Each file is written to a
// temporary name and renamed into place, so an interrupted run leaves no
// half file under the name an importer discovers.
func WriteRun(dir string, c Config) (Summary, error) {
	c, err := c.Resolve()
	if err != nil {
		return Summary{}, err
	}
	if err := checkPathElem(c.Benchmark); err != nil {
		return Summary{}, fmt.Errorf("benchmark name: %w", err)
	}
	p, err := NewPlan(c)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{
		Dir:         dir,
		Seed:        c.Seed,
		Concurrency: c.Concurrency,
		Counts:      p.Counts(),
		StartNS:     p.OriginNS,
		EndNS:       p.EndNS(),
		Sources:     c.Sources.Names(),
		Timezone:    c.Timezone,
	}
	s.DurationS = float64(s.EndNS-s.StartNS) / 1e9
	outs, err := outputs(p, &s)
	if err != nil {
		return s, err
	}
	for _, out := range outs {
		f := File{Path: out.rel, Kind: out.kind}
		if out.toPath != nil {
			if err := writeByName(filepath.Join(dir, filepath.FromSlash(out.rel)), func(p string) error { return out.toPath(p, &f) }); err != nil {
				return s, err
			}
			if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(out.rel))); err == nil {
				f.Bytes = st.Size()
			}
			s.Files = append(s.Files, f)
			s.Bytes += f.Bytes
			continue
		}
		err := writeFile(filepath.Join(dir, filepath.FromSlash(out.rel)), func(w io.Writer) error {
			cw := &countingWriter{w: w}
			err := out.write(cw, &f)
			f.Bytes = cw.n
			return err
		})
		if err != nil {
			return s, err
		}
		s.Files = append(s.Files, f)
		s.Bytes += f.Bytes
	}
	return s, nil
}

// outputs lists the files of the selected sources, in writing order.
func outputs(p *Plan, s *Summary) ([]output, error) {
	c := p.Config
	src := c.Sources
	var outs []output
	text := func(kind, rel string, write func(io.Writer) (int64, error)) {
		outs = append(outs, output{kind, rel, func(w io.Writer, f *File) (err error) {
			f.Lines, err = write(w)
			return err
		}, nil})
	}
	if src.Has(SourceAIPerf) {
		text(KindAIPerf, AIPerfPath(c.Benchmark), func(w io.Writer) (int64, error) {
			_, lines, err := WriteAIPerf(w, p)
			return int64(lines), err
		})
	}
	if src == SourceAIPerf {
		return outs, nil
	}
	sv := newServing(p)
	s.Oddities = sv.oddities()
	for i := range sv.reqs {
		if !sv.reqs[i].traced {
			s.Untraced++
		}
	}
	if !src.Has(SourceOTel) {
		s.Untraced = 0
	}
	if src.Has(SourceAgentPerf) {
		dir := AgentPerfDir(c.Benchmark)
		text(KindAgentPerfRequests, path.Join(dir, "requests.jsonl"), func(w io.Writer) (int64, error) { return writeAgentPerfRequests(w, sv) })
		text(KindAgentPerfManifest, path.Join(dir, "phase_manifest.jsonl"), func(w io.Writer) (int64, error) { return writeAgentPerfManifest(w, p) })
		text(KindAgentPerfAnalysis, path.Join(dir, agentPerfAnalysisName(p)), func(w io.Writer) (int64, error) { return writeAgentPerfAnalysis(w, p) })
	}
	if src.Has(SourceFrontend) {
		for i, fe := range sv.d.frontends {
			text(KindFrontend, FrontendPath(fe.host, fe.index), func(w io.Writer) (int64, error) { return writeFrontend(w, sv, i) })
		}
	}
	if src.Has(SourceOTel) {
		text(KindOTel, OTelPath(OTelCollector), func(w io.Writer) (int64, error) {
			lines, spans, err := writeOTel(w, sv)
			s.Spans = spans
			return lines, err
		})
		if c.OTelDuplicate {
			text(KindOTel, OTelPath(OTelReplica), func(w io.Writer) (int64, error) {
				return copyFile(w, filepath.Join(s.Dir, filepath.FromSlash(OTelPath(OTelCollector))))
			})
		}
	}
	var occ *occupancy
	occupancyOnce := func() *occupancy {
		if occ == nil {
			occ = newOccupancy(sv)
		}
		return occ
	}
	if src.workerLogs() {
		loc, err := time.LoadLocation(c.Timezone)
		if err != nil {
			return nil, fmt.Errorf("timezone: %w", err)
		}
		for w := range sv.d.workers {
			wk := &sv.d.workers[w]
			for h := range wk.hosts {
				if !logsOnHost(src, wk, h) {
					continue
				}
				text(KindWorker, WorkerLogPath(wk.logFile(h)), func(out io.Writer) (int64, error) {
					return writeWorkerLog(out, sv, occupancyOnce(), w, h, loc)
				})
			}
		}
	}
	if src.Has(SourceTachometer) {
		var capt *capture
		captureOnce := func() *capture {
			if capt == nil {
				capt = newCapture(sv, occupancyOnce())
			}
			return capt
		}
		outs = append(outs, output{KindTachometerFinal, path.Join(TachometerDir(), tachometer.FinalName), func(w io.Writer, f *File) (err error) {
			f.Rows, err = captureOnce().writeFinal(w)
			s.MetricRows = f.Rows
			return err
		}, nil}, output{KindTachometerTail, path.Join(TachometerDir(), "current.arrow"), func(w io.Writer, f *File) (err error) {
			f.Rows, err = captureOnce().writeTail(w)
			return err
		}, nil})
		text(KindTachometerConfig, TachometerConfigPath(), func(w io.Writer) (int64, error) {
			return captureOnce().writeConfig(w)
		})
	}
	if src.Has(SourceNsight) {
		outs = append(outs, nsightOutputs(sv)...)
	}
	return outs, nil
}

// logsOnHost reports whether worker wk writes anything on its host h: the
// head node carries the Dynamo runtime's bindings, and every node the
// engine lines of its ranks (TokenSpeed logs from rank 0 only).
func logsOnHost(src Sources, wk *workerProc, h int) bool {
	if h == 0 {
		return src.Has(SourceWorkers) || (wk.engine == engineSGLang && src.Has(SourceSGLang)) || (wk.engine == engineTokenSpeed && src.Has(SourceTokenSpeed))
	}
	if wk.engine != engineSGLang || !src.Has(SourceSGLang) {
		return false
	}
	for r := range wk.dp {
		if wk.hostOfRank(r) == h {
			return true
		}
	}
	return false
}

// copyFile copies a written file and returns its line count.
func copyFile(w io.Writer, name string) (int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var lines int64
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		if _, werr := w.Write(buf[:n]); werr != nil {
			return lines, werr
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
	}
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeByName is writeFile for a writer that needs a path: it writes a
// hidden temporary name beside name and renames it into place.
func writeByName(name string, write func(path string) error) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp")
	if err := write(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", name, err)
	}
	return os.Rename(tmp, name)
}

func writeFile(name string, write func(io.Writer) error) (err error) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// checkPathElem accepts a name usable as one directory component.
func checkPathElem(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("%q is not a directory name", name)
	case strings.ContainsAny(name, `/\`+"\x00"):
		return errors.New("must not contain path separators")
	}
	return nil
}
