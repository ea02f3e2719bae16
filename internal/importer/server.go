package importer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/otlp"
	"github.com/dsight/dsight/internal/sourcename"
)

// serverFiles are the server-side evidence files of a run.
type serverFiles struct {
	frontends, workers, otel []string // absolute paths, sorted
}

// discoverServer finds frontend logs, worker logs (by the shared filename
// grammar) and OTel exports (otel/traces.jsonl, otel/*/traces.jsonl).
func discoverServer(logDir string, withOTel bool) (serverFiles, error) {
	var f serverFiles
	err := filepath.WalkDir(logDir, func(p string, e fs.DirEntry, err error) error {
		// A pipe or device named like a log is kept, so that opening it
		// refuses it by name rather than skipping it without a word.
		if err != nil || e.IsDir() || e.Type()&fs.ModeSymlink != 0 || !strings.HasSuffix(e.Name(), ".out") {
			return err
		}
		id, ok := sourcename.Parse(e.Name())
		switch {
		case !ok:
		case id.Role == "frontend":
			f.frontends = append(f.frontends, p)
		default:
			f.workers = append(f.workers, p)
		}
		return nil
	})
	if err != nil {
		return f, err
	}
	if withOTel {
		rel, err := otlp.Discover(os.DirFS(logDir))
		if err != nil {
			return f, err
		}
		for _, r := range rel {
			f.otel = append(f.otel, filepath.Join(logDir, filepath.FromSlash(r)))
		}
	}
	sort.Strings(f.frontends)
	sort.Strings(f.workers)
	sort.Strings(f.otel)
	return f, nil
}

// serverEvidence is the parsed server-side evidence of a run.
type serverEvidence struct {
	in join.Input
}

// readServer parses every server evidence file, registering each as a source.
func (res *Result) readServer(d *model.Dataset, root string, files serverFiles, claimed map[string]bool) (*serverEvidence, error) {
	var in join.Input
	read := func(path, kind string, parse func(src *source) error) error {
		src, err := res.open(d, root, path, kind)
		if err != nil {
			return err
		}
		defer src.close()
		if err := parse(src); err != nil {
			return err
		}
		if err := res.finishSource(d, src); err != nil {
			return err
		}
		claimed[path] = true
		return nil
	}
	var frontends []*dynamolog.FrontendLog
	for _, p := range files.frontends {
		if err := read(p, "frontend_log", func(src *source) error {
			log, err := dynamolog.ScanFrontend(src.reader(), src.rel)
			frontends = append(frontends, log)
			return err
		}); err != nil {
			return nil, err
		}
	}
	for _, log := range frontends {
		in.Bridges = append(in.Bridges, log.Bridges...)
	}
	dynamolog.MarkAmbiguity(in.Bridges)
	for _, p := range files.workers {
		id, _ := sourcename.Parse(filepath.Base(p))
		if err := read(p, "worker_log", func(src *source) error {
			log, err := dynamolog.ScanWorker(src.reader(), src.rel)
			if log != nil {
				in.WorkerLogs = append(in.WorkerLogs, join.WorkerLog{Name: id, Bindings: log.Bindings, EngineMaps: log.EngineMaps})
			}
			return err
		}); err != nil {
			return nil, err
		}
	}
	var spans otlp.Collector
	for _, p := range files.otel {
		if err := read(p, "otel", func(src *source) error { return spans.Add(src.rel, src.reader()) }); err != nil {
			return nil, err
		}
	}
	otel := spans.Result()
	in.Spans = append(otel.Spans, otel.Invalid...) // the join counts and never joins inverted spans
	d.Audit["duplicate_spans"] += int64(len(otel.Duplicates))
	for _, f := range otel.Files {
		if f.Empty {
			d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%s recorded no spans", f.Path))
		}
	}
	if n := len(otel.Invalid); n > 0 {
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d OTel span(s) end before they start; they are counted and never joined (first: %s:%d)", n, otel.Invalid[0].Ref.Path, otel.Invalid[0].Ref.Line))
	}
	return &serverEvidence{in: in}, nil
}

// window is the union of the recorded server timestamps that carry an
// absolute time: valid OTel spans, and log lines whose time has an explicit
// UTC offset. It frames runs without a client export; nothing is inferred.
func (ev *serverEvidence) window() (lo, hi int64, ok bool) {
	add := func(a, b int64) {
		if b < a {
			return
		}
		if !ok {
			lo, hi, ok = a, b, true
			return
		}
		lo, hi = min(lo, a), max(hi, b)
	}
	for k := range ev.in.Spans {
		add(ev.in.Spans[k].StartNS, ev.in.Spans[k].EndNS)
	}
	at := func(t *model.Timestamp) {
		if t != nil && t.UnixNS != nil {
			add(*t.UnixNS, *t.UnixNS)
		}
	}
	for k := range ev.in.Bridges {
		at(ev.in.Bridges[k].Time)
	}
	for _, w := range ev.in.WorkerLogs {
		for k := range w.Bindings {
			at(w.Bindings[k].Time)
		}
		for k := range w.EngineMaps {
			at(w.EngineMaps[k].ObservedAt)
		}
	}
	return lo, hi, ok
}

// join attaches the server evidence to the client requests (absolute
// times at this point): each request with any keeps its joined evidence
// and a summary of it; lifecycle spans no request owns become server spans.
func (res *Result) join(d *model.Dataset, ev *serverEvidence, requests []model.Request, originNS, lastNS int64) error {
	in := ev.in
	in.Window = &join.Window{StartNS: originNS, EndNS: lastNS}

	paths := make(map[int]string, len(d.Sources))
	for _, s := range d.Sources {
		paths[s.ID] = s.Path
	}
	clients := make([]model.ClientTiming, len(requests))
	for i, r := range requests {
		clients[i] = model.ClientTiming{ID: r.ID, StartNS: r.StartNS, EndNS: r.EndNS, FirstNS: r.FirstNS,
			Evidence: model.LineRef{Path: paths[r.Evidence.Source], Line: r.Evidence.Line}}
	}
	joined, err := join.Join(clients, in)
	if err != nil {
		return err
	}
	for k, v := range joined.Audit {
		d.Audit[k] += v
	}
	for i := range joined.Requests {
		j := &joined.Requests[i]
		if len(j.ServerIDs) == 0 && len(j.Spans) == 0 && len(j.Bindings) == 0 && len(j.Engine) == 0 {
			continue
		}
		// The report keeps the evidence; readers render it and derive the
		// lifecycle on demand. The build only says whether one is available.
		available := lifecycle.Available(j)
		requests[i].Server = &model.RequestServer{
			ServerIDs: append([]string{}, j.ServerIDs...), Workers: append([]string{}, j.Workers...),
			SpanCount: len(j.Spans), LifecycleAvailable: available, Evidence: len(d.Evidence),
		}
		requests[i].Issues = append(requests[i].Issues, j.Issues...)
		if available {
			d.Audit["clients_with_lifecycle"]++
		}
		d.Evidence = append(d.Evidence, *j)
	}
	d.ServerSpans = joined.ServerSpans
	return nil
}
