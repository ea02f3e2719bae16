package importer

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"

	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/otlp"
	"github.com/dsight/dsight/internal/spanspill"
)

// The streamed OTel read. Spans go to disk as they are decoded, bucketed
// by a hash of their trace and span id, so every copy of a span lands in
// the bucket of the first; de-duplication is then exact, one bucket at a
// time, by the Collector's rule (otlp.CheckDuplicate). What stays in
// memory is per bucket while it is read, plus the resources and scopes
// the spans share. The join (joinstream.go) reads the buckets again.

// The de-duplication buckets grow with the OTel input, so that a bucket
// read back stays a few MB whatever the run: a 2M-span run (2.2 GB of
// OTel JSON) puts ~4,000 spans in each of 512, and a 20M-span run in each
// of 2,048 put ~10,000 where 512 held ~39,000, whose read buffers (a
// bucket's spans, attributes and bytes, ~44 MB each, one per read in
// flight) were 0.28 GB of the join's live heap. The cap keeps the spill's
// open files, with the join's owner buckets, under common descriptor limits.
const (
	minSpillBuckets = 512
	maxSpillBuckets = 2048
)

// spillInputPerBucket is the OTel input a de-duplication bucket is sized
// for. Tests lower it.
var spillInputPerBucket int64 = 4 << 20

// spillBuckets is the number of de-duplication buckets for otelBytes of
// OTel exports.
func spillBuckets(otelBytes int64) int {
	n := (otelBytes + spillInputPerBucket - 1) / spillInputPerBucket
	return int(min(max(n, minSpillBuckets), maxSpillBuckets))
}

// otelSpill is the OTel evidence of a streamed build until the join.
type otelSpill struct {
	store *spanspill.Store
	// file numbers the trace files in read order: with a span's line and
	// ordinal it gives the span's place in the input (spanOrder).
	file map[string]int
	// The valid unique spans: how many, and the times they cover.
	spans      int64
	lo, hi     int64
	haveWindow bool
	// later lists, per bucket, the places of the later copies the check
	// pass dropped (none in most buckets), so the join's passes drop them
	// again without keying every span (uniqueAgain).
	later [][]int32
	// keys holds the key maps unique uses, one per bucket being read.
	keys sync.Pool
	// links are the distinct (trace, Dynamo request id) pairs of the valid
	// unique spans, noted by the check pass: all the join's link step
	// reads (join.Stream.LinkAll), so it needs no pass of its own.
	links *join.Links
}

// noteLink keeps the pair span sp links its trace by, if any; sp is valid
// and cut to the report's bounds, as the join's spans are.
func (o *otelSpill) noteLink(sp *model.Span) {
	o.links.Note(sp.TraceID, join.LinkRequestID(sp))
}

// spanOrder places a span in the order the join takes spans (the order
// the in-memory import held them in): valid spans in input order, then
// inverted ones.
type spanOrder struct {
	invalid bool
	file    int
	line    int64
	ordinal int
}

func (o *otelSpill) order(sp *model.Span) spanOrder {
	return spanOrder{sp.EndNS < sp.StartNS, o.file[sp.Ref.Path], sp.Ref.Line, sp.Ref.Ordinal}
}

func (a spanOrder) compare(b spanOrder) int {
	if a.invalid != b.invalid {
		if a.invalid {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line), cmp.Compare(a.ordinal, b.ordinal))
}

func (o *otelSpill) bucket(sp *model.Span) int {
	// FNV-1a over trace id, a zero byte and span id: fixed, so a run
	// spills the same way every time.
	h := uint64(14695981039346656037)
	for _, s := range [...]string{sp.TraceID, "\x00", sp.SpanID} {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
	}
	return int(h % uint64(o.store.Buckets()))
}

type spanKey struct{ trace, span string }

// unique reads bucket b and drops every later copy of a span, in place:
// the spans left are the first copies, in the order they were added. A
// copy that differs from its first is a conflict; the one earliest in the
// input is returned with its place.
func (o *otelSpill) unique(b int, buf *spanspill.ReadBuffer) (spans []model.Span, dups int64, conflict error, at spanOrder, err error) {
	spans, err = o.store.ReadInto(b, buf)
	if err != nil {
		return nil, 0, nil, at, err
	}
	// The key maps are reused from bucket to bucket: made afresh they
	// were 0.2 GB of a 2M-span build's allocations.
	first, _ := o.keys.Get().(map[spanKey]int)
	if first == nil {
		first = make(map[spanKey]int, len(spans))
	}
	defer func() { clear(first); o.keys.Put(first) }()
	var drop []int32
	n := 0
	for k := range spans {
		sp := &spans[k]
		key := spanKey{sp.TraceID, sp.SpanID}
		if i, ok := first[key]; ok {
			if e := otlp.CheckDuplicate(&spans[i], sp); e != nil {
				// Input order, as the Collector meets them (both copies
				// keep their own validity in the order).
				if where := (spanOrder{false, o.file[sp.Ref.Path], sp.Ref.Line, sp.Ref.Ordinal}); conflict == nil || where.compare(at) < 0 {
					conflict, at = e, where
				}
			}
			dups++
			drop = append(drop, int32(k))
			continue
		}
		first[key] = n
		spans[n] = *sp
		buf.Move(n, k)
		n++
	}
	if o.later != nil {
		o.later[b] = drop
	}
	clear(spans[n:])
	return spans[:n], dups, conflict, at, nil
}

// uniqueAgain reads bucket b back without its later copies, which the
// check pass (unique) found and noted: the same spans unique gives, with
// no key built for any of them. The spans live in buf (ReadInto).
func (o *otelSpill) uniqueAgain(b int, buf *spanspill.ReadBuffer) ([]model.Span, error) {
	if o.later == nil {
		spans, _, _, _, err := o.unique(b, buf)
		return spans, err
	}
	spans, err := o.store.ReadInto(b, buf)
	if err != nil || len(o.later[b]) == 0 {
		return spans, err
	}
	drop, n := o.later[b], 0
	for k := range spans {
		if len(drop) > 0 && int(drop[0]) == k {
			drop = drop[1:]
			continue
		}
		spans[n] = spans[k]
		buf.Move(n, k)
		n++
	}
	clear(spans[n:])
	return spans[:n], nil
}

// otelDecode is the first half of the OTel read: every export decoded
// into the spill, in file order, each file hashed as it is read. It
// touches nothing of the build's dataset, so it runs on a goroutine of
// its own from the start of the import (startOTel), beside the client
// export and the frontend and worker logs; readOTelStreamed takes its
// result at the OTel exports' turn and registers the files, counts and
// warns exactly as a read at that turn would have.
type otelDecode struct {
	dir   string
	done  chan struct{}
	stop  atomic.Bool // the import failed before the OTel turn
	o     *otelSpill  // nil when the spill could not be created (err)
	err   error
	files []decodedOTel // in read order, up to the first that failed
	taken bool          // readOTelStreamed took o (and closes it with the join)
}

// decodedOTel is one OTel export as the decode left it.
type decodedOTel struct {
	path  string
	st    fs.FileInfo
	sum   []byte
	stats otlp.FileStats
	head  *head
	err   error // opening, decoding or hashing it failed; no later file was read
}

var errOTelStopped = errors.New("the OTel read was stopped")

// decodeOTelEarly starts the OTel decode with the import; tests turn it
// off to compare with the decode run at the OTel exports' turn.
var decodeOTelEarly = true

// startOTel starts decoding files into a spill (otelDecode).
func startOTel(b *build, files []string) *otelDecode {
	dir := b.opt.SpillDir
	if dir == "" {
		dir = os.TempDir()
	}
	e := &otelDecode{dir: dir, done: make(chan struct{})}
	var otelBytes int64
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil {
			otelBytes += fi.Size()
		}
	}
	open, root := b.open, b.root
	go func() {
		defer close(e.done)
		buckets := spillBuckets(otelBytes)
		store, err := spanspill.New(dir, buckets)
		if err != nil {
			e.err = fmt.Errorf("cannot keep the OTel spans on disk in %s (set --spill-dir to a writable directory with room for about the OTel input's size): %w", dir, err)
			return
		}
		o := &otelSpill{store: store, file: map[string]int{}, later: make([][]int32, buckets), links: join.NewLinks()}
		e.o = o
		for _, p := range files {
			f := decodeOTelFile(open, root, p, o, &e.stop)
			e.files = append(e.files, f)
			if f.err != nil {
				return
			}
		}
	}()
	return e
}

// decodeOTelFile opens, decodes and hashes one OTel export, as readFile
// reads a source.
func decodeOTelFile(open func(string) (file, error), root, path string, o *otelSpill, stop *atomic.Bool) decodedOTel {
	d := decodedOTel{path: path}
	f, err := open(path)
	if err != nil {
		d.err = err
		return d
	}
	defer f.Close()
	if d.st, d.err = f.Stat(); d.err != nil {
		return d
	}
	rel := relative(root, path)
	h := sha256.New()
	r, hd := capture(io.TeeReader(f, h))
	d.head = hd
	if _, ok := o.file[rel]; !ok {
		o.file[rel] = len(o.file)
	}
	// The spill encodes each span as it is handed over (Transient).
	d.stats, d.err = otlp.Options{Transient: true}.Decode(r, rel, func(sp *model.Span) error {
		if stop.Load() {
			return errOTelStopped
		}
		return o.store.Add(o.bucket(sp), sp)
	})
	if d.err != nil {
		return d
	}
	if _, d.err = io.Copy(h, f); d.err == nil { // what the decoder did not need
		d.sum = h.Sum(nil)
	}
	return d
}

// wait waits for the decode to end.
func (e *otelDecode) wait() { <-e.done }

// abandon stops a decode whose result the import will not take (it
// failed before the OTel turn) and closes its spill.
func (e *otelDecode) abandon() {
	e.stop.Store(true)
	e.wait()
	if e.o != nil && !e.taken {
		e.o.store.Close()
	}
}

// readOTelStreamed takes the decode of every OTel export (started by
// startOTel, or here when it was not) and checks the spill as the
// in-memory import checked its held spans (otlp.Collector,
// truncateOversized), with the same counters and warnings in the same
// order.
func readOTelStreamed(b *build, files []string) error {
	d := b.d
	e := b.otelEarly
	if e == nil {
		e = startOTel(b, files)
		b.otelEarly = e
	}
	if b.opt.Progress != nil {
		b.opt.Progress("spilling the OTel spans to " + e.dir + " (about the OTel input's size, removed when the build ends)")
	}
	e.wait()
	if e.err != nil {
		return e.err
	}
	o, store := e.o, e.o.store
	e.taken = true
	b.server.otel = o
	heads := map[string]*head{}
	var stats []otlp.FileStats
	for _, f := range e.files {
		if f.err != nil {
			return f.err
		}
		if err := b.registerRead(f.path, "otel", f.st, f.sum); err != nil {
			return err
		}
		heads[f.stats.Path] = f.head
		stats = append(stats, f.stats)
	}
	var dups, invalid int64
	var conflict error
	var conflictAt, firstInvalidAt spanOrder
	firstInvalid := ""
	// Truncation, as truncateOversized counts it over the held spans: each
	// span's attributes, and each shared resource or scope once, at the
	// first span (in held order) that points at it.
	cut := 0
	var cutAt spanOrder
	cutFirst := ""
	noteCut := func(k int, at spanOrder, ref model.SpanRef) {
		if k == 0 {
			return
		}
		if cut == 0 || at.compare(cutAt) < 0 {
			cutAt, cutFirst = at, fmt.Sprintf("%s:%d", ref.Path, ref.Line)
		}
		cut += k
	}
	type firstUse struct {
		at  spanOrder
		ref model.SpanRef
	}
	shared := map[*model.Attributes]firstUse{}
	use := func(a *model.Attributes, at spanOrder, ref model.SpanRef) {
		if u, ok := shared[a]; !ok || at.compare(u.at) < 0 {
			shared[a] = firstUse{at, ref}
		}
	}
	type uniqueBucket struct {
		spans []model.Span
		dups  int64
		c     error
		at    spanOrder
		buf   *spanspill.ReadBuffer
	}
	bufs := newSpillBuffers()
	if err := inOrder(store.Buckets(), readAhead(), func(k int) (uniqueBucket, error) {
		buf := bufs.get()
		spans, n, c, at, err := o.unique(k, buf)
		return uniqueBucket{spans, n, c, at, buf}, err
	}, func(_ int, u uniqueBucket) error {
		// Everything kept of a span below is a copy (formatted, cloned or
		// the spill's own), so its bucket's buffer serves the next read.
		defer bufs.put(u.buf)
		spans, c, at := u.spans, u.c, u.at
		dups += u.dups
		if c != nil && (conflict == nil || at.compare(conflictAt) < 0) {
			conflict, conflictAt = c, at
		}
		for i := range spans {
			sp := &spans[i]
			at := o.order(sp)
			if at.invalid {
				if invalid == 0 || at.compare(firstInvalidAt) < 0 {
					firstInvalidAt, firstInvalid = at, fmt.Sprintf("%s:%d", sp.Ref.Path, sp.Ref.Line)
				}
				invalid++
			} else {
				o.spans++
				if !o.haveWindow {
					o.lo, o.hi, o.haveWindow = sp.StartNS, sp.EndNS, true
				}
				o.lo, o.hi = min(o.lo, sp.StartNS), max(o.hi, sp.EndNS)
			}
			noteCut(truncateAttrs(sp.Attrs), at, sp.Ref) // a copy: the join cuts its own again
			if !at.invalid {
				o.noteLink(sp)
			}
			if sp.Resource != nil {
				use(&sp.Resource.Attrs, at, sp.Ref)
			}
			if sp.Scope != nil {
				use(&sp.Scope.Attrs, at, sp.Ref)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if conflict != nil {
		return conflict
	}
	// Resources and scopes are the spill's own, shared by every span read
	// back: cut once here, they are cut for the join.
	for a, u := range shared {
		noteCut(truncateAttrs(*a), u.at, u.ref)
	}
	reportTruncated(d, cut, cutFirst)
	d.Audit["duplicate_spans"] += dups
	otelFileWarnings(d, stats, heads)
	if invalid > 0 {
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d OTel span(s) end before they start; they are counted and never joined (first: %s)", invalid, firstInvalid))
	}
	return nil
}

// otelFileWarnings are readOTel's per-file warnings and the replaced-text
// count, from the decoder's file statistics.
func otelFileWarnings(d *model.Dataset, stats []otlp.FileStats, heads map[string]*head) {
	var replaced int64
	first := ""
	for _, f := range stats {
		if f.Spans == 0 {
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
	if replaced > 0 {
		d.Audit["otel_replaced_strings"] = replaced
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d OTel string(s) hold invalid UTF-8 or an unpaired surrogate escape; kept with U+FFFD in place of what could not be decoded (first: %s)", replaced, first))
	}
}
