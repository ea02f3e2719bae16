package importer

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/dsight/dsight/internal/batchobs"
	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/otlp"
	"github.com/dsight/dsight/internal/sourcename"
)

// serverEvidence is the parsed server-side evidence of a run.
type serverEvidence struct {
	in    join.Input
	batch *batchobs.Result // iteration records and batch snapshots
	// otel holds the spans on disk until the join when the build streams
	// (Options.Stream); in.Spans is then empty.
	otel *otelSpill
}

// readFrontends scans every frontend log for its bridge lines.
func readFrontends(b *build, files []string) error {
	in := &b.server.in
	var frontends []*dynamolog.FrontendLog
	heads := map[string]*head{}
	for _, p := range files {
		if _, err := b.readFile(p, "frontend_log", func(src *source) error {
			r, h := capture(src.reader())
			heads[src.rel] = h
			log, err := dynamolog.ScanFrontend(r, src.rel)
			frontends = append(frontends, log)
			return err
		}); err != nil {
			return err
		}
	}
	var bad, times undecodable
	defer times.reportTimes(b.d)
	for _, log := range frontends {
		in.Bridges = append(in.Bridges, log.Bridges...)
		if log != nil {
			bad.add(log.Path, log.Undecodable, log.FirstUndecodable)
			times.add(log.Path, log.BadTimes, log.FirstBadTime)
			if log.Bytes == 0 {
				b.d.Meta.Warnings = append(b.d.Meta.Warnings, log.Path+" is empty: a frontend log that records no bridges")
			} else if desc := foreign(heads[log.Path], shapeDynamo, false); desc != "" && len(log.Bridges) == 0 {
				b.d.Meta.Warnings = append(b.d.Meta.Warnings, log.Path+" records no bridges: "+desc+", not a Dynamo frontend log")
			}
		}
	}
	bad.report(b.d, "frontend", "undecodable_frontend_lines")
	dynamolog.MarkAmbiguity(in.Bridges)
	return nil
}

// readWorkers reads every worker log once: the one pass feeds both the
// scan for worker bindings and engine id maps and the log-metric
// generators, whose results wait for the run window (a log-metric error
// waits too, so that it is reported where the metrics are built).
func readWorkers(b *build, files []string) error {
	in := &b.server.in
	var bad, times undecodable
	var empty, odd []string
	defer func() {
		bad.report(b.d, "worker", "undecodable_worker_lines")
		times.reportTimes(b.d)
		for _, p := range empty {
			b.d.Meta.Warnings = append(b.d.Meta.Warnings, p+" is empty: a worker log that records no bindings, engine ids or metrics")
		}
		b.d.Meta.Warnings = append(b.d.Meta.Warnings, odd...)
	}()
	for _, p := range files {
		id, _ := sourcename.Parse(filepath.Base(p))
		if _, err := b.readFile(p, "worker_log", func(src *source) error {
			return fanOut(src.reader(), func(r io.Reader) error {
				r, h := capture(r)
				log, err := dynamolog.ScanWorker(r, src.rel)
				if log != nil && log.Bytes > 0 && len(log.Bindings) == 0 && len(log.EngineMaps) == 0 {
					if desc := foreign(h, shapeDynamo, false); desc != "" {
						odd = append(odd, log.Path+" records no bindings or engine ids: "+desc+", not a worker log")
					}
				}
				if log != nil {
					in.WorkerLogs = append(in.WorkerLogs, join.WorkerLog{Name: id, Bindings: log.Bindings, EngineMaps: log.EngineMaps})
					bad.add(log.Path, log.Undecodable, log.FirstUndecodable)
					times.add(log.Path, log.BadTimes, log.FirstBadTime)
					if log.Bytes == 0 {
						empty = append(empty, log.Path)
					}
				}
				return err
			}, func(r io.Reader) error {
				return b.metrics.ReadLog(r, src.rel, src.id, id, b.opt.IterationTimezone)
			}, b.res.batchReader(id, src.rel))
		}); err != nil {
			return err
		}
	}
	return nil
}

// readOTel collects the spans of every OTel export.
func readOTel(b *build, files []string) error {
	if b.opt.Stream && len(files) > 0 {
		return readOTelStreamed(b, files)
	}
	d, in := b.d, &b.server.in
	var spans otlp.Collector
	heads := map[string]*head{}
	for _, p := range files {
		if _, err := b.readFile(p, "otel", func(src *source) error {
			r, h := capture(src.reader())
			heads[src.rel] = h
			return spans.Add(src.rel, r)
		}); err != nil {
			return err
		}
	}
	otel := spans.Result()
	in.Spans = append(otel.Spans, otel.Invalid...) // the join counts and never joins inverted spans
	truncateOversized(d, in.Spans)
	d.Audit["duplicate_spans"] += int64(len(otel.Duplicates))
	var replaced int64
	first := ""
	for _, f := range otel.Files {
		if f.Empty {
			if desc := foreign(heads[f.Path], shapeOTel, true); desc != "" {
				d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%s recorded no spans: %s, not OTel JSON", f.Path, desc))
			} else {
				d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%s recorded no spans", f.Path))
			}
		}
		if f.Replaced > 0 && first == "" {
			first = fmt.Sprintf("%s:%d", f.Path, f.FirstReplaced)
		}
		replaced += f.Replaced
	}
	// The rule for invalid UTF-8, stated once: OTel text (span names,
	// attribute keys and values) is kept with U+FFFD for what cannot be
	// decoded, as encoding/json does, and counted here; client exports
	// refuse it (raw or as an unpaired \ud800 escape) with file:line,
	// because their request ids must join byte for byte.
	if replaced > 0 {
		d.Audit["otel_replaced_strings"] = replaced
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d OTel string(s) hold invalid UTF-8 or an unpaired surrogate escape; kept with U+FFFD in place of what could not be decoded (first: %s)", replaced, first))
	}
	if n := len(otel.Invalid); n > 0 {
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d OTel span(s) end before they start; they are counted and never joined (first: %s:%d)", n, otel.Invalid[0].Ref.Path, otel.Invalid[0].Ref.Line))
	}
	return nil
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
	if o := ev.otel; o != nil && o.haveWindow {
		add(o.lo, o.hi)
	}
	at := func(t *model.Timestamp) {
		if t != nil && t.UnixNS != nil {
			add(*t.UnixNS, *t.UnixNS)
		}
	}
	for k := range ev.in.Bridges {
		at(ev.in.Bridges[k].Time)
	}
	if a, b, found := ev.batch.Window(); found { // aligned ones only
		add(a, b)
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
	if ev.otel != nil {
		return res.joinStreamed(d, ev, requests, originNS, lastNS)
	}
	in := ev.in
	in.Window = &join.Window{StartNS: originNS, EndNS: lastNS}
	joined, err := join.Join(clientTimings(d, requests), in)
	if err != nil {
		return err
	}
	for k, v := range joined.Audit {
		d.Audit[k] += v
	}
	if n := joined.Audit["unjoined_worker_bindings"] + joined.Audit["unjoined_engine_maps"]; n > 0 && len(requests) > 0 {
		// Without this a request silently loses the worker only such a
		// record names (its decode worker, typically).
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf(unjoinedWorkerWarning, n, joined.FirstUnjoined))
	}
	if n, first := noDecodeWorker(&in, joined.Requests); n > 0 {
		d.Audit["requests_without_decode_worker"] = n
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf(noDecodeWorkerWarning, n, first))
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

// The join's warnings, one text for the held and the streamed join.
const (
	unjoinedWorkerWarning = "%d worker-log binding(s) or engine id map(s) name a Dynamo request id that no frontend bridge maps to a kept client request (a request outside the phase, or a frontend log missing); their workers are not attributed (first: %s)"
	noDecodeWorkerWarning = "%d request(s) the server saw name no decode worker: no worker-log binding or engine id map names one and no OTel span of decode was joined (a request that never reached decode, a decode log without request bindings, an untraced request or a build with --no-otel) (first: %s)"
)

// clientTimings are the requests as the join takes them.
func clientTimings(d *model.Dataset, requests []model.Request) []model.ClientTiming {
	paths := make(map[int]string, len(d.Sources))
	for _, s := range d.Sources {
		paths[s.ID] = s.Path
	}
	clients := make([]model.ClientTiming, len(requests))
	for i, r := range requests {
		clients[i] = model.ClientTiming{ID: r.ID, StartNS: r.StartNS, EndNS: r.EndNS, FirstNS: r.FirstNS,
			Evidence: model.LineRef{Path: paths[r.Evidence.Source], Line: r.Evidence.Line}}
	}
	return clients
}

// undecodable totals the Dynamo JSON records of one kind of log that could
// not be decoded (torn or damaged lines), so that the build says how many
// were skipped and where the first is, instead of dropping them unseen.
type undecodable struct {
	n     int64
	first string
}

func (u *undecodable) add(path string, n, firstLine int64) {
	if n > 0 && u.first == "" {
		u.first = fmt.Sprintf("%s:%d", path, firstLine)
	}
	u.n += n
}

func (u *undecodable) report(d *model.Dataset, kind, counter string) {
	d.Audit[counter] += u.n
	if u.n > 0 {
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d %s log lines hold a Dynamo JSON record that cannot be decoded (torn or damaged); skipped (first: %s)", u.n, kind, u.first))
	}
}

// reportTimes counts the frontend and worker log timestamps that break
// dynamolog's plausibility rule (a real date and time from MinYear to
// MaxYear): kept as recorded text, never used as times, the first named.
func (u *undecodable) reportTimes(d *model.Dataset) {
	if u.n == 0 {
		return
	}
	d.Audit["implausible_log_timestamps"] += u.n
	d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d frontend/worker log timestamp(s) are not a real date and time from %d to %d; kept as recorded text, not used as times (first: %s)", u.n, dynamolog.MinYear, dynamolog.MaxYear, u.first))
}
