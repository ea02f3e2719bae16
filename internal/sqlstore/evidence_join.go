package sqlstore

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/watermark"
)

// A traced build's join decodes every request's server evidence once, to
// encode it into the report's chunks. Reading those chunks back for the
// store decodes the ~2M spans of a 100k-request run a second time, after
// the import, on the build's critical path (~3 CPU-s). EvidenceRows takes
// the evidence as the join hands it over instead and encodes the store's
// span, lifecycle and binding rows beside the join, on two goroutines of
// its own, spilling them in rowid and request order; the store then only
// lays them out as pages (evidenceTables).
//
// The rows are what the pass over the finished dataset would encode only
// if the join knew what that pass knows: the run's origin, each evidence
// path's source id, each record's request ordinal and the file's schema
// format. pass checks each against the dataset and the file before the
// rows are used, and leaves the evidence to the pass when one differs.

// tapBatch is how many records go to the span rows' goroutine at once.
const tapBatch = 256

// tapBuffered is how many batches may wait for that goroutine: the join
// blocks beyond them, so the records it hands over are never many.
const tapBuffered = 4

// EvidenceRows encodes the store's evidence rows while the import's join
// produces the evidence (importer.EvidenceTap). Its methods but Close are
// called from one goroutine, the join's, in order: BeginEvidence, then
// Evidence for records 0, 1, ..., then EndEvidence.
type EvidenceRows struct {
	dir     string
	p       *evidencePass
	spans   *os.File      // each span: its row's length, its row
	out     *bufio.Writer // spans' writer, the span goroutine's
	starts  *os.File      // each span's start's bits, in rowid order
	outS    *bufio.Writer // starts' writer, the span goroutine's
	keptF   *os.File      // the groups and binding keys, once the rows end
	kept    *keptRows     // what keptF holds, read after done
	records int           // records handed over
	batch   []evItem
	in      chan []evItem
	done    chan struct{}
	err     error // the first failure of the join's calls
	runErr  error // the goroutine's, read after done
	began   bool
	ended   bool
	// rel runs what Then registers once the records are read no more:
	// its level is how many the request rows' goroutine is done with.
	rel watermark.Waiters
	// sortedStarts gives the starts sorted in runs, read and sorted
	// once (sortStarts).
	sortOnce     sync.Once
	sortedStarts func() (*startRuns, error)
}

// NewEvidenceRows is an EvidenceRows that spills its rows under dir (""
// for the system's temporary directory), about a third of the OTel
// input's size (0.3 GB a GB at 100k traced requests), and once a store
// is made from them their starts sorted in runs (16 bytes a span, 320 MB
// at 20M spans); the files are unlinked when made and closed by Close.
func NewEvidenceRows(dir string) *EvidenceRows {
	return &EvidenceRows{dir: dir}
}

// BeginEvidence is told the run's origin and the sources registered so
// far, before the first record.
func (e *EvidenceRows) BeginEvidence(originNS int64, sources []model.Source) {
	if e.began {
		e.fail(errors.New("the evidence rows were begun twice"))
		return
	}
	e.began = true
	w := &writer{origin: originNS, sourceIDs: make(map[string]int, len(sources)), misses: &pathMisses{}}
	for _, s := range sources {
		w.sourceIDs[s.Path] = s.ID
	}
	spans, err := e.temp(".trace-data-spans-*")
	if err != nil {
		e.fail(err)
		return
	}
	starts, err := e.temp(".trace-data-starts-*")
	if err != nil {
		spans.Close()
		e.fail(err)
		return
	}
	rows, err := e.temp(".trace-data-rows-*")
	if err != nil {
		spans.Close()
		starts.Close()
		e.fail(err)
		return
	}
	kept, err := e.temp(".trace-data-kept-*")
	if err != nil {
		spans.Close()
		starts.Close()
		rows.Close()
		e.fail(err)
		return
	}
	e.keptF = kept
	// Schema format 4 is what SQLite writes for a new file; pass checks it.
	e.p = &evidencePass{w: w, spill: rows, out: bufio.NewWriterSize(rows, 1<<20), intSmall: true,
		rec: &record{intSmall: true, valuesOnly: true}}
	e.spans, e.out = spans, bufio.NewWriterSize(spans, 1<<20)
	e.starts, e.outS = starts, bufio.NewWriterSize(starts, 1<<16)
	e.in, e.done = make(chan []evItem, tapBuffered), make(chan struct{})
	go e.run()
}

// temp creates a spill file, unlinked at once so no build leaves it.
func (e *EvidenceRows) temp(pattern string) (*os.File, error) {
	f, err := os.CreateTemp(e.dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("the store's evidence rows: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("the store's evidence rows: %w", err)
	}
	return f, nil
}

// Evidence takes record k, owned by the request that will be ordinal
// request once the import orders them (-1 for none). ev must not change
// until a function Then registers afterwards has run.
func (e *EvidenceRows) Evidence(k, request int, ev *model.RequestEvidence) {
	if e.p == nil || e.ended || e.err != nil {
		if e.err == nil {
			e.fail(errors.New("evidence handed over outside BeginEvidence and EndEvidence"))
		}
		return
	}
	if k != e.records {
		e.fail(fmt.Errorf("evidence record %d handed over after %d records", k, e.records))
		return
	}
	e.records++
	e.batch = append(e.batch, evItem{k, request, ev})
	if len(e.batch) == tapBatch {
		e.in <- e.batch
		e.batch = make([]evItem, 0, tapBatch)
	}
}

// Then runs f once none of the rows' goroutines reads any record handed
// over so far (importer.EvidenceReleaser): the join then reads the next
// spans into the buffers those records were views of, rather than into
// new ones. It runs on one of those goroutines, or at once.
func (e *EvidenceRows) Then(f func()) {
	if e.p == nil {
		f() // never begun: nothing reads a record
		return
	}
	e.rel.Then(e.records, f)
}

// EndEvidence follows the last record.
func (e *EvidenceRows) EndEvidence() {
	if e.p == nil || e.ended {
		return
	}
	e.ended = true
	if len(e.batch) > 0 {
		e.in <- e.batch
		e.batch = nil
	}
	close(e.in)
}

// run encodes the span rows of each batch on this goroutine and hands the
// records to the request rows' goroutine.
func (e *EvidenceRows) run() {
	defer close(e.done)
	p := e.p
	rows := p.startRequestRows()
	rows.released = e.rel.Add
	defer e.rel.Finish()
	var head [8]byte
	put := func(_ int64, start float64, rec []byte) error {
		binary.LittleEndian.PutUint64(head[:], math.Float64bits(start))
		if _, err := e.outS.Write(head[:]); err != nil {
			return err
		}
		binary.LittleEndian.PutUint32(head[:4], uint32(len(rec)))
		if _, err := e.out.Write(head[:4]); err != nil {
			return err
		}
		_, err := e.out.Write(rec)
		return err
	}
	var err error
	for batch := range e.in {
		if err != nil {
			continue // drained, so the join never blocks
		}
		for _, it := range batch {
			if err = p.record(it.k, it.owner, it.ev, rows, put); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = errors.Join(e.out.Flush(), e.outS.Flush())
	}
	err = p.endRecords(rows, err)
	if err == nil {
		e.kept, err = p.keep(e.keptF)
	}
	if err != nil {
		err = fmt.Errorf("the store's evidence rows: %w", err)
	}
	e.runErr = err
}

// fail keeps the first failure of the join's calls.
func (e *EvidenceRows) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// pass is the evidence pass the rows make for the store w writes from d
// into bf, or nil when they do not hold for it (none were begun or ended,
// the run's origin, a source id, a request's ordinal or the schema format
// differ): the store then reads the evidence itself. A failure to spill
// them is an error.
func (e *EvidenceRows) pass(w *writer, d *model.Dataset, bf *bulkFile) (*evidencePass, error) {
	if e == nil || e.p == nil {
		return nil, e.failure()
	}
	e.sortStarts()
	if !e.ended {
		return nil, errors.New("the store's evidence rows were not ended")
	}
	<-e.done
	if err := errors.Join(e.err, e.runErr); err != nil {
		return nil, err
	}
	p, tw := e.p, e.p.w
	if tw.origin != w.origin || !bf.intSmall {
		return nil, nil
	}
	if owned, err := e.ownedAsIn(d); err != nil || !owned {
		return nil, err
	}
	for path, id := range tw.sourceIDs {
		if got, ok := w.sourceIDs[path]; !ok || got != id {
			return nil, nil
		}
	}
	for path := range tw.misses.paths {
		if _, ok := w.sourceIDs[path]; ok {
			return nil, nil
		}
	}
	// A copy, so the rows may make more than one store (one at a time):
	// the layout adds the server spans' group and rowids to its own, and
	// reads the groups and keys back into its own.
	q := *p
	q.w, q.sorted, q.kept = w, e.sortedStarts, e.kept
	return &q, nil
}

// ownedAsIn says whether the records' groups have the owners d's
// evidence has: the requests' ordinals the join named are their final
// ones. The spilled groups hold them (keptRows), rather than a list
// beside them, which the build held from its import to the store's
// evidence tables.
func (e *EvidenceRows) ownedAsIn(d *model.Dataset) (bool, error) {
	owners := evidenceOwners(d)
	if len(owners) != e.kept.groups {
		return false, nil
	}
	k, owned := 0, true
	err := e.kept.eachGroup(func(g evGroup) bool {
		owned = int(g.owner) == owners[k]
		k++
		return owned
	})
	return owned, err
}

// sortStarts starts sorting the join's spans' starts on a goroutine of
// its own: WriteFrom calls it first, so they are sorted beside the tables
// laid out before server_spans_window.
func (e *EvidenceRows) sortStarts() {
	if e == nil || e.p == nil || !e.ended {
		return
	}
	e.sortOnce.Do(func() {
		e.sortedStarts = sync.OnceValues(func() (*startRuns, error) {
			<-e.done
			if err := errors.Join(e.err, e.runErr); err != nil {
				return nil, err
			}
			return sortRuns(e.starts, e.p.nspans, e.dir)
		})
		go e.sortedStarts()
	})
}

// failure is the error a join's call met, for a pass that cannot be made.
func (e *EvidenceRows) failure() error {
	if e == nil {
		return nil
	}
	return e.err
}

// Close removes the spilled rows; it waits for the goroutines of rows
// begun but never ended (a failed import).
func (e *EvidenceRows) Close() error {
	if e == nil || e.p == nil {
		return nil
	}
	e.EndEvidence()
	<-e.done
	// Once, so a sort begun before (sortStarts) is seen, and waited for.
	e.sortOnce.Do(func() {})
	var runs *startRuns
	if e.sortedStarts != nil {
		runs, _ = e.sortedStarts()
	}
	return errors.Join(e.spans.Close(), e.starts.Close(), e.p.spill.Close(), e.keptF.Close(), runs.close())
}

// spansFromSpill lays out server_spans from the span rows spilled during
// the join, then the spans no request owns.
func (p *evidencePass) spansFromSpill(d *model.Dataset, bf *bulkFile, spill *os.File) error {
	tree, err := bf.rowidTree("server_spans")
	if err != nil {
		return err
	}
	r := bufio.NewReaderSize(io.NewSectionReader(spill, 0, math.MaxInt64), 1<<20)
	var head [4]byte
	var rec []byte
	for rowid := int64(0); rowid < p.nspans; rowid++ {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return fmt.Errorf("the spilled span rows: %w", err)
		}
		n := int(binary.LittleEndian.Uint32(head[:]))
		rec = slices.Grow(rec[:0], n)[:n]
		if _, err := io.ReadFull(r, rec); err != nil {
			return fmt.Errorf("the spilled span rows: %w", err)
		}
		// Their starts are sorted on a goroutine of their own (p.sorted).
		if err := tree.add(rowid, rec); err != nil {
			return err
		}
	}
	return p.serverSpans(d, bf, tree, p.layout(tree))
}

// pathMisses are the evidence paths a writer found no source id for.
type pathMisses struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (m *pathMisses) note(path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.paths == nil {
		m.paths = map[string]bool{}
	}
	m.paths[strings.Clone(path)] = true // path may be a view of a buffer the join reuses
}
