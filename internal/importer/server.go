package importer

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/dsight/dsight/internal/batchobs"
	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/sourcename"
)

// serverEvidence is the parsed server-side evidence of a run.
type serverEvidence struct {
	in    join.Input
	batch *batchobs.Result // iteration records and batch snapshots
	// otel holds the spans on disk until the join (nil when no OTel
	// export was read); in.Spans stays empty.
	otel *otelSpill
	// spillDir is where the spills' files go (Options.SpillDir).
	spillDir string
	// tap hears each request's evidence as the join encodes it, the
	// request named by its ordinal once align orders the requests.
	tap      EvidenceTap
	ordinals []int
}

// EvidenceTap hears the server evidence of a run as its join encodes it
// (Options.EvidenceTap): BeginEvidence with the run's origin and the
// sources registered so far, then Evidence for each record k in order,
// with the ordinal its request will have in Dataset.Requests, then
// EndEvidence. A record is never changed after it is handed over.
type EvidenceTap interface {
	BeginEvidence(originNS int64, sources []model.Source)
	Evidence(k, request int, ev *model.RequestEvidence)
	EndEvidence()
}

// EvidenceReleaser is an EvidenceTap that says when it is done with the
// records handed to it: Then runs f, on any goroutine, once it reads none
// of those handed over so far. The join then reads the next spans into
// the buffers those records were views of; with a tap that cannot say so,
// it reads each range's spans into new buffers (a 100,000-request traced
// build with the store collected 52 times instead of 41:
// docs/measurements.md, issue 17).
type EvidenceReleaser interface {
	Then(f func())
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
	var bridges []model.Bridge
	for _, log := range frontends {
		bridges = append(bridges, log.Bridges...)
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
	in.Bridges = join.NewBridges(bridges)
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
					in.WorkerLogs = append(in.WorkerLogs, join.NewWorkerLog(id, log.Bindings, log.EngineMaps))
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

// readOTel decodes the spans of every OTel export into the spill
// (otelspill.go); the join reads them back from there.
func readOTel(b *build, files []string) error {
	if len(files) == 0 {
		return nil
	}
	return readOTelStreamed(b, files)
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
	if o := ev.otel; o != nil && o.haveWindow {
		add(o.lo, o.hi)
	}
	at := func(t *model.Timestamp) {
		if t != nil && t.UnixNS != nil {
			add(*t.UnixNS, *t.UnixNS)
		}
	}
	if a, b, found := ev.in.Bridges.Window(); found {
		add(a, b)
	}
	if a, b, found := ev.batch.Window(); found { // aligned ones only
		add(a, b)
	}
	for n := range ev.in.WorkerLogs {
		w := &ev.in.WorkerLogs[n]
		if a, b, found := w.BindingWindow(); found {
			add(a, b)
		}
		for k := range w.EngineMaps {
			at(w.EngineMaps[k].ObservedAt)
		}
	}
	return lo, hi, ok
}

// join attaches the server evidence to the client requests (absolute
// times at this point): each request with any keeps its joined evidence
// (encoded as it is finished, Dataset.StreamedEvidence) and a summary of
// it; lifecycle spans no request owns become server spans.
func (res *Result) join(d *model.Dataset, ev *serverEvidence, requests []model.Request, originNS, lastNS int64) error {
	return res.joinStreamed(d, ev, requests, originNS, lastNS)
}

// The join's warnings.
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
