package importer

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dsight/dsight/internal/batchobs"
	"github.com/dsight/dsight/internal/model"
)

// Options selects what to import.
type Options struct {
	Run    string // run directory (containing logs/) or the log directory itself
	Client string // explicit client export; overrides discovery
	Phase  string // "profiling" (default) or "all"
	Job    string // run name; defaults to the log directory's parent name
	NoOTel bool   // skip OTel exports entirely
	// Metrics is an explicit Tachometer capture (leaf directory or file);
	// empty looks under <logs>/tachometer/local.
	Metrics string
	// IterationTimezone aligns naive local worker-log timestamps for log
	// metrics; nil omits those metrics with a warning.
	IterationTimezone *time.Location
	// NsysSQLite are explicit Nsight exports (files or directories searched
	// recursively), read besides the *.sqlite files under the log directory.
	NsysSQLite []string
	// MaxProfileEvents bounds the NVTX ranges kept per profile (0: the
	// default of nsys.DefaultMaxEvents).
	MaxProfileEvents int64
	// SpillDir is where the build keeps the OTel spans on disk between
	// its passes (about the size of the OTel input; the files are
	// unlinked at once); "" is the system's temporary directory.
	SpillDir string
	// Progress, when set, hears each phase of the import as it starts
	// ("reading worker logs (12 files)"), for a person waiting on a long
	// build; it never changes what is read.
	Progress func(phase string)
	// EvidenceTap, when set, is handed each request's server evidence as
	// the join encodes it, so what else is made of it (the SQL store's
	// rows) is made beside the join rather than read back after it.
	EvidenceTap EvidenceTap

	open func(path string) (file, error) // opens every source file; nil is os.Open
}

// Result is an imported dataset plus what is needed to verify, just before
// publishing, that no source changed while the build ran.
type Result struct {
	Dataset *model.Dataset
	stamps  []stamp
	pending int // sources opened but not yet registered

	batchLoc   *time.Location     // aligns naive iteration/snapshot timestamps
	batchParts []*batchobs.Result // per worker log, in read order
}

type stamp struct {
	path    string
	size    int64
	modTime int64
	// changeTime is the inode change time: a rewrite that keeps the size
	// and puts the modification time back still moves it.
	changeTime int64
}

// Import reads the run described by opt.
func Import(opt Options) (*Result, error) {
	if opt.Phase == "" {
		opt.Phase = "profiling"
	}
	if opt.Phase != "profiling" && opt.Phase != "all" {
		return nil, fmt.Errorf("--phase must be profiling or all; got %q", opt.Phase)
	}
	root, logDir, err := locate(opt.Run)
	if err != nil {
		return nil, err
	}
	res, err := importRun(opt, root, logDir)
	if err != nil {
		return nil, runRelative(root, err)
	}
	return res, nil
}

// importRun is Import once the run is located.
func importRun(opt Options, root, logDir string) (*Result, error) {
	if opt.Progress != nil {
		opt.Progress("finding the sources in " + logDir)
	}
	inv, err := walkRun(logDir)
	if err != nil {
		return nil, err
	}
	open := opt.open
	if open == nil {
		open = openOS
	}
	b := &build{opt: opt, root: root, logDir: logDir, inv: inv, open: open, registered: map[string]int{}, held: map[string]*held{}}
	b.server.spillDir = opt.SpillDir
	defer b.closeHeld()
	defer func() {
		if o := b.server.otel; o != nil {
			o.store.Close() // a failed import's spill; the join closes its own
		}
	}()
	// Discovery, once: each kind claims its files from the inventory.
	files := make([][]string, len(sourceKinds))
	for i, k := range sourceKinds {
		if files[i], err = k.discover(b); err != nil {
			return nil, err
		}
	}
	job := opt.Job
	if job == "" {
		job = filepath.Base(filepath.Dir(logDir))
		if filepath.Base(logDir) != "logs" {
			job = filepath.Base(logDir)
		}
	}
	d := &model.Dataset{
		Meta: model.Meta{
			Job: job, SourceRoot: root, Phase: opt.Phase,
			Limitations: []string{
				"Client timing is what the benchmark client recorded; server-side stages need correlated server evidence.",
				"Times are seconds relative to origin_ns; no cross-host clock correction is applied.",
			},
		},
		Audit: model.Audit{},
	}
	if opt.IterationTimezone != nil {
		d.Meta.IterationTimezone = opt.IterationTimezone.String()
	}
	d.Meta.OTelEnabled = !opt.NoOTel
	recordLinks(d, root, inv.links)
	b.d, b.res = d, &Result{Dataset: d, batchLoc: opt.IterationTimezone}
	// The OTel exports decode into their spill from the start, beside
	// the client export and the logs; their turn below takes the result.
	for i, k := range sourceKinds {
		if k.otel && len(files[i]) > 0 && decodeOTelEarly {
			b.otelEarly = startOTel(b, files[i])
			defer b.otelEarly.abandon()
		}
	}
	// Every kind that frames nothing is read before the window...
	for i, k := range sourceKinds {
		if !k.framed {
			b.progress(k, files[i])
			if err := k.read(b, files[i]); err != nil {
				return nil, err
			}
		}
	}
	requests := b.requests
	server := &b.server
	server.batch = b.res.mergeBatch() // every worker log is read
	if err := checkPlausible(d, requests); err != nil {
		return nil, err
	}
	var origin, last int64
	if len(requests) > 0 {
		origin, last = requests[0].StartNS, requests[0].EndNS
		for _, r := range requests {
			origin, last = min(origin, r.StartNS), max(last, r.EndNS)
		}
		d.Meta.TimeBasis = "client measurement window"
	} else {
		// No client requests: the window is what the sources recorded, and
		// no request or TTFT is synthesized.
		var ok bool
		origin, last, ok = server.window()
		mlo, mhi, mok, err := b.metrics.Envelope() // the capture inspected, the logs already read
		if err != nil {
			return nil, err
		}
		for _, w := range []struct {
			lo, hi int64
			ok     bool
		}{{mlo, mhi, mok}, b.profileWindow} {
			if w.ok {
				if !ok {
					origin, last = w.lo, w.hi
				}
				origin, last, ok = min(origin, w.lo), max(last, w.hi), true
			}
		}
		if !ok || last <= origin {
			return nil, fmt.Errorf("no positive recorded time range: %s", describeEmpty(root, b.clients))
		}
		d.Meta.TimeBasis = "available source timestamps; no client measurement window"
	}
	res := b.res
	if opt.Progress != nil {
		opt.Progress("joining server evidence to the requests")
	}
	finishBatch(d, server, origin, last)
	// Each request's place in the dataset, known before the join so the
	// join can name it (EvidenceTap); align moves the requests there.
	order := ordinals(requests)
	if opt.EvidenceTap != nil {
		server.tap, server.ordinals = opt.EvidenceTap, order
	}
	if err := res.join(d, server, requests, origin, last); err != nil {
		return nil, err
	}
	// Joined: what the dataset did not keep (bridges, worker-log records) is
	// free for the metrics. The spans stay, with the evidence that holds them.
	b.server = serverEvidence{}
	if err := align(d, requests, order, origin, last); err != nil {
		return nil, err
	}
	// ... and the framed kinds after it.
	b.origin, b.last = origin, last
	for i, k := range sourceKinds {
		if k.framed {
			b.progress(k, files[i])
			if err := k.read(b, files[i]); err != nil {
				return nil, err
			}
		}
	}
	if err := deriveSessionMetrics(d); err != nil {
		return nil, err
	}
	d.Audit["sessions"] = int64(len(model.GroupSessions(d.Requests)))
	d.Unread = inv.unread(root, b.registered)
	if n := len(d.Unread); n > 0 {
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d file(s) in the run were not read (no reader for them, or skipped by a flag such as --no-otel), e.g. %s; manifest.json lists them all", n, strings.Join(d.Unread[:min(3, n)], ", ")))
	}
	return res, nil
}

// progress tells Options.Progress that kind k's files are being read.
func (b *build) progress(k sourceKind, files []string) {
	if b.opt.Progress == nil || len(files) == 0 {
		return
	}
	unit := "files"
	if len(files) == 1 {
		unit = "file"
	}
	b.opt.Progress(fmt.Sprintf("reading %s (%d %s)", k.name, len(files), unit))
}

// locate resolves the run directory and its log directory.
func locate(run string) (root, logDir string, err error) {
	if run == "" {
		return "", "", errors.New("no run directory given")
	}
	abs, err := filepath.Abs(run)
	if err != nil {
		return "", "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", "", fmt.Errorf("run directory: %w", err)
	}
	if !st.IsDir() {
		return "", "", fmt.Errorf("run directory %s is not a directory", run)
	}
	if st, err := os.Stat(filepath.Join(abs, "logs")); err == nil && st.IsDir() {
		return abs, filepath.Join(abs, "logs"), nil
	}
	return abs, abs, nil
}

// align rebases every request time to the run origin and puts each
// request at its place in order (ordinals: by start, then id).
func align(d *model.Dataset, requests []model.Request, order []int, origin, last int64) error {
	seen := make(map[string]bool, len(requests))
	for i := range requests {
		r := &requests[i]
		if seen[r.ID] {
			return fmt.Errorf("duplicate client request id %q across exports", r.ID)
		}
		seen[r.ID] = true
	}
	if last <= origin {
		return fmt.Errorf("no positive recorded time range: every client request starts and ends at %d ns", origin)
	}
	for i := range requests {
		r := &requests[i]
		r.StartNS -= origin
		r.EndNS -= origin
		if r.FirstNS != nil {
			f := *r.FirstNS - origin
			r.FirstNS = &f
		}
	}
	placeAt(requests, order)
	d.Requests = requests
	d.Meta.OriginNS = origin
	d.Meta.DurationNS = last - origin
	return nil
}

// requestOrder is the dataset's order of requests: by start, then id
// (unique, so the order is total). Rebasing to the origin keeps it. It
// takes pointers: a request is ~300 bytes, and a sort of a million would
// copy two at each of its ~20M comparisons.
func requestOrder(a, b *model.Request) int {
	return cmp.Or(cmp.Compare(a.StartNS, b.StartNS), strings.Compare(a.ID, b.ID))
}

// placeAt moves each request i to place order[i] (a permutation), in
// place, cycle by cycle.
func placeAt(requests []model.Request, order []int) {
	to := slices.Clone(order) // the tap may still hold order
	for i := range to {
		for to[i] != i {
			j := to[i]
			requests[i], requests[j] = requests[j], requests[i]
			to[i], to[j] = to[j], to[i]
		}
	}
}

// ordinals is each request's place once align orders them.
func ordinals(requests []model.Request) []int {
	at := make([]int, len(requests))
	for i := range at {
		at[i] = i
	}
	slices.SortFunc(at, func(a, b int) int { return requestOrder(&requests[a], &requests[b]) })
	ord := make([]int, len(requests))
	for o, i := range at {
		ord[i] = o
	}
	return ord
}

// Verify fails when a source file changed after it was read, so a report
// never mixes two versions of a run.
func (res *Result) Verify() error {
	for _, s := range res.stamps {
		st, err := os.Stat(s.path)
		if err != nil {
			return fmt.Errorf("source %s disappeared during the build: %w", s.path, err)
		}
		if st.Size() != s.size || st.ModTime().UnixNano() != s.modTime || changeTime(st) != s.changeTime {
			return fmt.Errorf("source %s changed during the build; build from a preserved run", s.path)
		}
	}
	return nil
}

func describeEmpty(root string, clients []string) string {
	if len(clients) == 0 {
		return "no client export found (looked for " + strings.Join(clientGlobs, ", ") + ") and no other readable source"
	}
	return relative(root, clients[0]) + " has no client requests and no other source has timestamps"
}

func relative(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(path)
}
