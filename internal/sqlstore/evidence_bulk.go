package sqlstore

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/dsight/dsight/internal/model"
)

// The server evidence is the store's largest input (a 100k-request traced
// run: ~2M spans, ~1M lifecycle stages), and a streamed build decodes it
// from its chunks each time it is read. evidencePass reads it once and
// lays out every table and index drawn from it as b-tree pages:
// server_spans and its two indexes, lifecycle_stages and worker_bindings
// and the latter's index. Through SQLite, the per-request tables cost a
// VDBE run and a b-tree insert a row, and the span indexes a scan of the
// whole span table and an external sort.
//
// server_spans is written as the evidence arrives (its rowid is its
// position). The per-request tables are keyed by request ordinal, which
// the evidence is not ordered by: their records are spilled beside the
// store as they are encoded, one group per evidence record, and read back
// group by group in request order, so the build never holds them.

// evGroup is one evidence record's rows: its spans' rowids and where its
// stage and binding records were spilled (rowGroup). A traced build holds
// one a record through its import and the store's evidence indexes (1M at
// 1M requests): 32 bytes, where it was 64.
type evGroup struct {
	firstSpan int64 // rowid of its first span
	at        int64 // its records' offset in the spill: stages, then bindings
	owner     int32 // the owning request's ordinal, -1 for none
	spans     int32
	stageLen  int32
	bindLen   int32
}

// rowGroup is where one evidence record's stage and binding records went,
// as the request rows' goroutine counts them.
type rowGroup struct {
	at       int64 // its records' offset in the spill: stages, then bindings
	stageLen int
	stages   int
	bindLen  int
	binds    int
}

// spanStart is one server_spans_window entry.
type spanStart struct {
	start float64
	rowid int64
}

// bindingKey is one worker_bindings_worker entry, its worker an index
// into evidencePass.workers: 12 bytes a binding (~2M at 1M requests),
// where it was 40.
type bindingKey struct {
	worker  uint32
	request int32
	ordinal int32
}

type evidencePass struct {
	w      *writer
	rec    *record // a span's row, as bulkFile.rowRecord makes it
	nspans int64   // the spans encoded: the next span's rowid
	groups []evGroup
	// unowned is the spans no request owns, after the groups' (serverSpans).
	unowned evGroup
	starts  []spanStart
	// sorted, when set, gives the starts of the spans laid out from the
	// join's rows (spansFromSpill), sorted in runs beside the layout;
	// starts then holds only the spans added after them.
	sorted func() (*startRuns, error)
	bkeys  []bindingKey
	// kept, when set, holds the groups and binding keys until the indexes
	// need them (readKept): they were spilled when the join's rows ended.
	kept *keptRows
	// workers are the bindings' workers, each once, and their indexes.
	workers   []string
	workerIDs map[string]uint32
	spill     *os.File
	out       *bufio.Writer
	spillAt   int64
	// maxStage and maxBinding are the largest records: a row too large
	// for an index page leaves its table to SQLite (fill). They, bkeys and
	// the spill belong to the request rows' goroutine during the pass.
	maxStage, maxBinding int
	intSmall             bool // the file's schema format (record.intSmall)
}

// forceSQLiteEvidence leaves lifecycle_stages and worker_bindings to
// SQLite, as if a row did not fit: the tests compare the two layouts.
var forceSQLiteEvidence = false

// Tables and indexes the evidence pass writes when their rows fit.
const (
	tableStages      = "lifecycle_stages"
	tableBindings    = "worker_bindings"
	indexSpanRequest = "server_spans_request"
	indexSpanWindow  = "server_spans_window"
	indexBindWorker  = "worker_bindings_worker"
)

// evidenceTables runs the pass: server_spans, its indexes and, when their
// rows fit index pages, lifecycle_stages, worker_bindings and its index.
// The tables it leaves are recorded in w.sqliteEvidence for fill. When
// the join already encoded the rows (EvidenceRows, checked against the
// dataset by rows.pass), the pass lays out theirs rather than decoding the
// evidence again.
func (w *writer) evidenceTables(d *model.Dataset, bf *bulkFile, spillDir string, tapped *EvidenceRows) (err error) {
	p, err := tapped.pass(w, d, bf)
	if err != nil {
		return err
	}
	if p != nil {
		w.evidenceFromJoin = true
		if err := p.spansFromSpill(d, bf, tapped.spans); err != nil {
			return err
		}
	} else {
		spill, err := os.CreateTemp(spillDir, ".trace-data-rows-*")
		if err != nil {
			return err
		}
		defer func() {
			spill.Close()
			os.Remove(spill.Name())
		}()
		p = &evidencePass{w: w, spill: spill, out: bufio.NewWriterSize(spill, 1<<20), intSmall: bf.intSmall, rec: bf.rowRecord()}
		if err := p.spans(d, bf); err != nil {
			return err
		}
	}
	if err := p.spanIndexes(bf); err != nil {
		return err
	}
	return p.requestTables(bf)
}

// spanPut takes one span's row and its start, in rowid order.
type spanPut func(rowid int64, start float64, rec []byte) error

// span encodes one span's row, owned by request req (-1 for none), and
// hands it to put with the next rowid.
func (p *evidencePass) span(req int, s *model.JoinedSpan, put spanPut) error {
	w, rec, sp := p.w, p.rec, s.Span
	service, _ := sp.Resource.ServiceName()
	// The columns in declared order, each value as record.value would
	// store it, without boxing ~2M rows' values.
	rec.reset()
	rec.null() // ordinal is the rowid: an INTEGER PRIMARY KEY is stored as NULL
	if req >= 0 {
		rec.int(int64(req))
	} else {
		rec.null()
	}
	rec.text(sp.TraceID)
	rec.text(sp.SpanID)
	rec.textOrNull(sp.ParentSpanID)
	rec.text(sp.Name)
	rec.text(sp.Kind.String())
	rec.text(sp.Role())
	start := w.seconds(sp.StartNS)
	rec.real(start)
	rec.real(w.seconds(sp.EndNS))
	rec.int(int64(sp.Status.Code))
	rec.textOrNull(sp.Status.Message)
	rec.textOrNull(service)
	for _, key := range [...]string{"dynamo.request.id", "dynamo.process.epoch"} {
		if v, ok := sp.Attrs.String(key); ok {
			rec.text(v)
		} else {
			rec.null()
		}
	}
	rec.textOrNull(s.Join)
	rec.textOrNull(s.Worker)
	rec.textOrNull(s.WorkerBasis)
	w.sourceValues(rec, sp.Ref.Path)
	rec.int(sp.Ref.Line)
	rec.int(int64(sp.Ref.Ordinal))
	err := put(p.nspans, start, rec.bytes())
	p.nspans++
	return err
}

// record encodes evidence record k's span rows, handing each to put, and
// queues its request rows; owner is its request's ordinal (-1 for none).
func (p *evidencePass) record(k, owner int, ev *model.RequestEvidence, rows *requestRows, put spanPut) error {
	if owner > math.MaxInt32 || len(ev.Spans) > math.MaxInt32 {
		return fmt.Errorf("evidence record %d: request %d, %d spans", k, owner, len(ev.Spans))
	}
	g := evGroup{owner: int32(owner), firstSpan: p.nspans, spans: int32(len(ev.Spans))}
	for j := range ev.Spans {
		if err := p.span(owner, &ev.Spans[j], put); err != nil {
			return err
		}
	}
	p.groups = append(p.groups, g)
	return rows.send(k, owner, ev)
}

// endRecords waits for the request rows of every record and notes where
// each record's went; err is the records' own.
func (p *evidencePass) endRecords(rows *requestRows, err error) error {
	if rerr := rows.finish(); err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	if len(rows.groups) != len(p.groups) {
		return fmt.Errorf("request rows for %d of %d evidence records", len(rows.groups), len(p.groups))
	}
	for k := range p.groups {
		r := &rows.groups[k]
		if r.stageLen > math.MaxInt32 || r.bindLen > math.MaxInt32 {
			return fmt.Errorf("evidence record %d: %d bytes of stages, %d of bindings", k, r.stageLen, r.bindLen)
		}
		g := &p.groups[k]
		g.at, g.stageLen, g.bindLen = r.at, int32(r.stageLen), int32(r.bindLen)
	}
	return nil
}

// layout is the spanPut that lays each row into server_spans.
func (p *evidencePass) layout(tree *rowidTree) spanPut {
	return func(rowid int64, start float64, rec []byte) error {
		p.starts = append(p.starts, spanStart{start, rowid})
		return tree.add(rowid, rec)
	}
}

// spans writes server_spans from the dataset's evidence and spills each
// record's stages and bindings.
func (p *evidencePass) spans(d *model.Dataset, bf *bulkFile) error {
	owner := evidenceOwners(d)
	tree, err := bf.rowidTree("server_spans")
	if err != nil {
		return err
	}
	put := p.layout(tree)
	rows := p.startRequestRows()
	err = eachEvidence(d, func(k int, ev *model.RequestEvidence) error {
		return p.record(k, owner[k], ev, rows, put)
	})
	if err := p.endRecords(rows, err); err != nil {
		return err
	}
	return p.serverSpans(d, bf, tree, put)
}

// serverSpans adds the spans no request owns after the owned ones and
// ends server_spans.
func (p *evidencePass) serverSpans(d *model.Dataset, bf *bulkFile, tree *rowidTree, put spanPut) error {
	if len(d.ServerSpans) > math.MaxInt32 {
		return fmt.Errorf("%d server spans no request owns", len(d.ServerSpans))
	}
	first := p.nspans
	for j := range d.ServerSpans {
		if err := p.span(-1, &d.ServerSpans[j], put); err != nil {
			return err
		}
	}
	// The spans no request owns sort first in server_spans_request.
	p.unowned = evGroup{owner: -1, firstSpan: first, spans: int32(len(d.ServerSpans))}
	return bf.doneRowid("server_spans", tree)
}

// byOwner is the groups' order by owning request (none first), each
// request's groups in pass order: indexes into p.groups, len(p.groups)
// standing for p.unowned, the last of those with none. A counting sort:
// 8 bytes a request and a group, where the groups sorted were a copy of
// them (61 MB at 1M requests).
func (p *evidencePass) byOwner() []int32 {
	top := int32(-1)
	for i := range p.groups {
		top = max(top, p.groups[i].owner)
	}
	next := make([]int32, int(top)+2) // by owner+1: its groups, then where its next one goes
	for i := range p.groups {
		next[p.groups[i].owner+1]++
	}
	next[0]++ // p.unowned
	at := int32(0)
	for o, n := range next {
		next[o], at = at, at+n
	}
	order := make([]int32, len(p.groups)+1)
	for i := range p.groups {
		o := p.groups[i].owner + 1
		order[next[o]] = int32(i)
		next[o]++
	}
	order[next[0]] = int32(len(p.groups))
	return order
}

// group is the group byOwner's index i names.
func (p *evidencePass) group(i int32) *evGroup {
	if int(i) == len(p.groups) {
		return &p.unowned
	}
	return &p.groups[i]
}

// spanIndexes writes server_spans_request (request, rowid), NULL first,
// and server_spans_window (start, rowid).
func (p *evidencePass) spanIndexes(bf *bulkFile) error {
	if err := p.readKept(false); err != nil {
		return err
	}
	t, err := bf.indexTree(indexSpanRequest, 2)
	if err != nil {
		return err
	}
	key := bf.record()
	for _, i := range p.byOwner() {
		g := p.group(i)
		for r := g.firstSpan; r < g.firstSpan+int64(g.spans); r++ {
			key.reset()
			if g.owner >= 0 {
				key.int(int64(g.owner))
			} else {
				key.null()
			}
			key.int(r)
			if err := t.add(key); err != nil {
				return err
			}
		}
	}
	if err := bf.doneIndex(indexSpanRequest, t); err != nil {
		return err
	}
	starts := p.starts
	slices.SortFunc(starts, compareStarts)
	var runs *startRuns
	if p.sorted != nil {
		// The join's spans were sorted in runs while the tables before
		// were laid out; the runs and the spans added since (server spans)
		// are merged as the index is written.
		if runs, err = p.sorted(); err != nil {
			return err
		}
	}
	if t, err = bf.indexTree(indexSpanWindow, 2); err != nil {
		return err
	}
	if err := runs.each(starts, func(s spanStart) error {
		key.reset()
		key.real(s.start)
		key.int(s.rowid)
		return t.add(key)
	}); err != nil {
		return err
	}
	p.starts = nil
	return bf.doneIndex(indexSpanWindow, t)
}

// compareStarts is server_spans_window's order: by start, then rowid.
func compareStarts(a, b spanStart) int {
	return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.rowid, b.rowid))
}

// requestTables reads the spilled records back in request order into
// lifecycle_stages and worker_bindings, and writes worker_bindings_worker.
// A table with a record too large for an index page is left to fill.
func (p *evidencePass) requestTables(bf *bulkFile) error {
	bulkStages := !forceSQLiteEvidence && p.maxStage <= bf.maxLocal()
	bulkBindings := !forceSQLiteEvidence && p.maxBinding <= bf.maxLocal()
	if !bulkStages {
		p.w.sqliteEvidence[tableStages] = true
	}
	if !bulkBindings {
		p.w.sqliteEvidence[tableBindings] = true
	}
	// The trees are written one after the other: each one's pages must
	// follow the last page written. A table left to fill keeps its empty
	// root.
	if bulkStages {
		stages, err := bf.tree(tableStages)
		if err != nil {
			return err
		}
		if err := p.readBack(func(g *evGroup, buf []byte) error { return addSpilled(stages, int(g.owner), buf[:g.stageLen]) }); err != nil {
			return err
		}
		if err := bf.done(tableStages, stages); err != nil {
			return err
		}
	}
	if !bulkBindings {
		return nil
	}
	bindings, err := bf.tree(tableBindings)
	if err != nil {
		return err
	}
	{
		if err := p.readBack(func(g *evGroup, buf []byte) error { return addSpilled(bindings, int(g.owner), buf[g.stageLen:]) }); err != nil {
			return err
		}
	}
	if err := bf.done(tableBindings, bindings); err != nil {
		return err
	}
	if err := p.readKept(true); err != nil {
		return err
	}
	// The workers' ranks in name order; keys alike are the same entry,
	// so their order is no matter. The keys are sorted in place but not
	// changed: rows from the join may make more than one store.
	names := slices.Clone(p.workers)
	slices.Sort(names)
	rank := make([]uint32, len(p.workers))
	for id, name := range p.workers {
		r, _ := slices.BinarySearch(names, name)
		rank[id] = uint32(r)
	}
	slices.SortFunc(p.bkeys, func(a, b bindingKey) int {
		return cmp.Or(cmp.Compare(rank[a.worker], rank[b.worker]), cmp.Compare(a.request, b.request), cmp.Compare(a.ordinal, b.ordinal))
	})
	t, err := bf.indexTree(indexBindWorker, 3)
	if err != nil {
		return err
	}
	key := bf.record()
	for _, b := range p.bkeys {
		key.reset()
		key.text(p.workers[b.worker])
		key.int(int64(b.request))
		key.int(int64(b.ordinal))
		if err := t.add(key); err != nil {
			return err
		}
	}
	return bf.doneIndex(indexBindWorker, t)
}

// readBack calls f with each group's spilled bytes, in request order.
func (p *evidencePass) readBack(f func(g *evGroup, buf []byte) error) error {
	var buf []byte
	r := spillWindow{f: p.spill, limit: 2 * p.spillAt}
	for _, i := range p.byOwner() {
		g := p.group(i)
		n := int(g.stageLen) + int(g.bindLen)
		if n == 0 {
			continue
		}
		buf = slices.Grow(buf[:0], n)[:n]
		if err := r.readAt(buf, g.at); err != nil {
			return fmt.Errorf("the spilled evidence rows: %w", err)
		}
		if err := f(g, buf); err != nil {
			return err
		}
	}
	return nil
}

// spillWindowSize is how much of the spill one read takes.
const spillWindowSize = 4 << 20

// spillWindow reads the spilled request rows in request order. The
// evidence comes in the client export's order, which is close to the
// requests' (an export is written as requests end, a few hundred records
// from their start order): the groups read one after another are mostly
// within a window of the file read at once, where a read each cost two
// system calls a request. Reads that keep missing it (a file in another
// order) stop using it once it has read the spill twice over.
type spillWindow struct {
	f     *os.File
	buf   []byte
	at    int64 // the file offset of buf[0]
	read  int64 // bytes read into the window so far
	limit int64
}

func (w *spillWindow) readAt(b []byte, off int64) error {
	if off >= w.at && off+int64(len(b)) <= w.at+int64(len(w.buf)) {
		copy(b, w.buf[off-w.at:])
		return nil
	}
	if len(b) > spillWindowSize/2 || w.read > w.limit {
		_, err := w.f.ReadAt(b, off)
		return err
	}
	// A quarter of the window reaches back, for the groups a little out
	// of order.
	w.at = max(0, off-spillWindowSize/4)
	w.buf = slices.Grow(w.buf[:0], spillWindowSize)[:spillWindowSize]
	n, err := w.f.ReadAt(w.buf, w.at)
	w.buf, w.read = w.buf[:n], w.read+int64(n)
	if off+int64(len(b)) > w.at+int64(n) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	copy(b, w.buf[off-w.at:])
	return nil
}

// addSpilled adds one group's records, keyed (request, ordinal), to t.
func addSpilled(t *bulkTree, owner int, buf []byte) error {
	key := &record{}
	for i := 0; len(buf) > 0; i++ {
		n, k := readVarint(buf)
		key.reset()
		key.int(int64(owner))
		key.int(int64(i))
		if err := t.addEncoded(buf[k:k+int(n)], key); err != nil {
			return err
		}
		buf = buf[k+int(n):]
	}
	return nil
}

// textOrNull appends s, or NULL for "" (nonEmpty).
func (r *record) textOrNull(s string) {
	if s == "" {
		r.null()
		return
	}
	r.text(s)
}
