package sqlstore

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/shard"

	_ "modernc.org/sqlite" // the pure-Go driver, registered as "sqlite"
)

// File is the store's name inside a report directory.
const File = "trace-data.sqlite"

// Stats is what one write produced.
type Stats struct {
	Rows  map[string]int64 // rows per table
	Bytes int64
	Took  time.Duration
	// EvidenceFromJoin: the evidence tables were laid out from the rows
	// the import's join encoded, not from a pass over the dataset.
	EvidenceFromJoin bool
}

// writer holds the one connection a store is written through.
type writer struct {
	ctx     context.Context
	dc      driverConn
	origin  int64
	pending int64 // rows since the last commit
	rows    map[string]int64
	// sourceIDs maps a registered evidence path to its source id.
	sourceIDs map[string]int
	// misses, when set, notes each path sourceValues found no id for:
	// rows encoded before the import ended (EvidenceRows) hold only while
	// those paths stay unregistered.
	misses *pathMisses
	// NVTX state the bulk phase leaves for the tables SQLite writes after
	// it: per profile, its threads' numbers; the nvtx_threads rows; the
	// longest range of each duration class.
	threads    []map[int64]int
	threadRows [][6]any
	durations  [][3]any
	// sqliteEvidence: the evidence tables whose rows did not fit index
	// pages, left for fill to insert (evidence_bulk.go).
	sqliteEvidence map[string]bool
	// evidenceFromJoin: the evidence tables were laid out from the rows
	// the join encoded (EvidenceRows).
	evidenceFromJoin bool
	// sessions waits for the requests grouped into sessions, which a
	// goroutine of their own groups while the last bulk tables are laid
	// out (groupSessions).
	sessions func() []model.Session
}

// source is an evidence path as (source id, NULL), or (NULL, path) when
// no source of that path is registered.
func (w *writer) source(path string) (id, unregistered any) {
	if id, ok := w.sourceIDs[path]; ok {
		return id, nil
	}
	return nil, nonEmpty(path)
}

// Write creates the store at path (which must not exist) from the dataset
// a build holds, before the report writer lays it out as shards: metric
// series still carry their summaries. A failed write removes the file.
func Write(path string, d *model.Dataset) (st Stats, err error) {
	return WriteFrom(path, d, nil)
}

// WriteFrom is Write taking the evidence rows the import's join encoded
// (nil for none): they are used when they hold for d (Stats says so).
func WriteFrom(path string, d *model.Dataset, tapped *EvidenceRows) (st Stats, err error) {
	began := time.Now()
	tapped.sortStarts()
	if _, err := os.Lstat(path); err == nil {
		return st, fmt.Errorf("sqlite store %s already exists", path)
	}
	defer func() {
		if err != nil {
			os.Remove(path)
			os.Remove(path + "-journal")
		}
	}()
	ctx := context.Background()
	w := &writer{ctx: ctx, origin: d.Meta.OriginNS, rows: map[string]int64{}, sourceIDs: map[string]int{},
		sqliteEvidence: map[string]bool{}}
	for _, s := range d.Sources {
		w.sourceIDs[s.Path] = s.ID
	}
	// SQLite creates the tables; the bulk tables' b-trees are then laid
	// out straight into the file (btree.go); SQLite, reopened, writes
	// every other table and the secondary indexes.
	roots, err := w.open(path, func() error { return w.create() })
	if err != nil {
		return st, err
	}
	if err := w.writeBulk(path, roots, d, tapped); err != nil {
		return st, fmt.Errorf("sqlite store: %w", err)
	}
	if _, err := w.open(path, func() error { return w.fill(d) }); err != nil {
		return st, err
	}
	st.Rows, st.EvidenceFromJoin = w.rows, w.evidenceFromJoin
	fi, err := os.Stat(path)
	if err != nil {
		return st, err
	}
	st.Bytes, st.Took = fi.Size(), time.Since(began)
	return st, nil
}

// groupSessions starts grouping d's requests into sessions for fill, on a
// goroutine of its own. The bulk phase calls it once its largest tables
// are laid out: grouped at the store's start, the sessions (39 MB at 1M
// requests) were held through them, beside the report's render of the
// core and its highest live heap.
func (w *writer) groupSessions(d *model.Dataset) {
	grouped := make(chan []model.Session, 1)
	go func() { grouped <- model.GroupSessions(d.Requests) }()
	w.sessions = sync.OnceValue(func() []model.Session { return <-grouped })
}

// driverConn is what the writer needs of the driver's connection.
type driverConn interface {
	driver.ConnPrepareContext
	driver.ExecerContext
}

// open runs step on a new connection to the store at path and returns
// the bulk tables' root pages as the schema then holds them.
func (w *writer) open(path string, step func() error) (map[string]uint32, error) {
	conn, err := openRaw(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	defer conn.Close()
	for _, p := range []string{"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF", "PRAGMA locking_mode=EXCLUSIVE"} {
		if _, err := conn.ExecContext(w.ctx, p, nil); err != nil {
			return nil, fmt.Errorf("sqlite store: %s: %w", p, err)
		}
	}
	w.dc = conn
	if err := step(); err != nil {
		return nil, err
	}
	roots, err := conn.rootPages()
	if err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	if err := conn.Close(); err != nil {
		return nil, fmt.Errorf("sqlite store: %w", err)
	}
	return roots, nil
}

// create declares the store's tables, every one empty.
func (w *writer) create() error {
	if err := w.exec("PRAGMA user_version=" + strconv.Itoa(Version)); err != nil {
		return err
	}
	if err := w.exec("BEGIN"); err != nil {
		return err
	}
	for _, ddl := range tables {
		if err := w.exec(ddl); err != nil {
			return err
		}
	}
	for _, ddl := range indexes[:earlyIndexes()] {
		if err := w.exec(ddl); err != nil {
			return err
		}
	}
	return w.exec("COMMIT")
}

// earlyIndexes is how many of indexes create declares with the tables:
// every one up to the last the bulk phase lays out, so the schema keeps
// indexes' order; SQLite keeps the others among them (the requests ones)
// up to date as it inserts. The rest are built after the rows.
func earlyIndexes() int {
	n := 0
	for i, ddl := range indexes {
		for _, name := range bulkIndexes {
			if strings.HasPrefix(ddl, "CREATE INDEX "+name+" ") {
				n = i + 1
			}
		}
	}
	return n
}

// fill writes every table but the bulk ones, then the secondary indexes.
func (w *writer) fill(d *model.Dataset) error {
	if err := w.exec("BEGIN"); err != nil {
		return err
	}
	steps := []func(*model.Dataset) error{
		w.meta, w.sources, func(*model.Dataset) error { return w.sessionRows() }, w.evidence,
		w.metrics, w.profiles, w.iterations,
	}
	for _, step := range steps {
		if err := step(d); err != nil {
			return fmt.Errorf("sqlite store: %w", err)
		}
	}
	for _, ddl := range indexes[earlyIndexes():] {
		if err := w.exec(ddl); err != nil {
			return err
		}
	}
	return w.exec("COMMIT")
}

func (w *writer) exec(q string) error {
	if err := w.execArgs(q, nil); err != nil {
		head, _, _ := strings.Cut(q, "(")
		return fmt.Errorf("sqlite store: %s: %w", strings.TrimSpace(head), err)
	}
	return nil
}

func (w *writer) execArgs(q string, args []driver.NamedValue) error {
	_, err := w.dc.ExecContext(w.ctx, q, args)
	return err
}

// rowsWritten commits every commitRows rows, so the journal (none, with
// journal_mode OFF) and the page cache's dirty set stay bounded.
func (w *writer) rowsWritten(n int64) error {
	w.pending += n
	if w.pending < commitRows {
		return nil
	}
	w.pending = 0
	if err := w.exec("COMMIT"); err != nil {
		return err
	}
	return w.exec("BEGIN")
}

// table streams rows into name through fill and records the row count.
func (w *writer) table(name string, cols int, fill func(in *inserter) error) error {
	in, err := w.inserter(name, cols)
	if err != nil {
		return err
	}
	// fill calls in.add directly: through a function value, every row's
	// variadic slice escaped to the heap (one allocation per row).
	err = fill(in)
	if cerr := in.close(); err == nil {
		err = cerr
	}
	w.rows[name] += in.rows
	return err
}

// seconds is the engine's conversion: the exact integer difference from
// the origin divided once, so nine decimals round-trip.
func (w *writer) seconds(ns int64) float64 { return float64(ns-w.origin) / 1e9 }

func (w *writer) optSeconds(ns *int64) any {
	if ns == nil {
		return nil
	}
	return w.seconds(*ns)
}

// relSeconds converts a time already relative to the origin.
func relSeconds(ns int64) float64 { return float64(ns) / 1e9 }

func optRel(ns *int64) any {
	if ns == nil {
		return nil
	}
	return relSeconds(*ns)
}

// opt turns a nil pointer into SQL NULL.
func opt[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// nonEmpty is NULL for "", which the model uses for "not recorded".
func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (w *writer) meta(d *model.Dataset) error {
	m := d.Meta
	if err := w.table("meta", 2, func(ins *inserter) error {
		for _, kv := range [][2]any{
			{"schema", model.Schema}, {"store_version", strconv.Itoa(Version)}, {"job", m.Job},
			{"origin_ns", strconv.FormatInt(m.OriginNS, 10)}, {"duration_s", strconv.FormatFloat(relSeconds(m.DurationNS), 'f', -1, 64)},
			{"phase", m.Phase}, {"time_basis", m.TimeBasis}, {"client_kind", nonEmpty(m.ClientKind)},
			{"otel_enabled", strconv.FormatBool(m.OTelEnabled)}, {"iteration_timezone", nonEmpty(m.IterationTimezone)},
		} {
			if err := ins.add(kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := w.table("audit", 2, func(ins *inserter) error {
		for _, k := range sortedKeys(d.Audit) {
			if err := ins.add(k, d.Audit[k]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := w.table("warnings", 3, func(ins *inserter) error {
		n := 0
		for _, s := range m.Warnings {
			if err := ins.add(n, "warning", s); err != nil {
				return err
			}
			n++
		}
		for _, s := range m.Limitations {
			if err := ins.add(n, "limitation", s); err != nil {
				return err
			}
			n++
		}
		return nil
	}); err != nil {
		return err
	}
	return w.table("unread", 1, func(ins *inserter) error {
		for _, p := range d.Unread {
			if err := ins.add(p); err != nil {
				return err
			}
		}
		return nil
	})
}

func (w *writer) sources(d *model.Dataset) error {
	return w.table("sources", 5, func(ins *inserter) error {
		for _, s := range d.Sources {
			if err := ins.add(s.ID, s.Path, s.Kind, s.Bytes, s.SHA256); err != nil {
				return err
			}
		}
		return nil
	})
}

// requestRow is request i's row in requests' declared column order, the
// first its ordinal, which the table's b-tree stores as NULL (the rowid).
func requestRow(i int, r *model.Request) [26]any {
	var serverIDs, spans any
	lifecycleOK := false
	if s := r.Server; s != nil {
		if len(s.ServerIDs) > 0 {
			serverIDs = strings.Join(s.ServerIDs, ",")
		}
		spans, lifecycleOK = s.SpanCount, s.LifecycleAvailable
	}
	return [26]any{nil, r.ID, r.Session, r.Agent, opt(r.Parent), opt(r.Conversation), opt(r.SourceTrace), opt(r.Turn), r.Depth,
		relSeconds(r.StartNS), relSeconds(r.EndNS), optRel(r.FirstNS), opt(r.TTFTms),
		opt(r.InputTokens), opt(r.OutputTokens), opt(r.CachedTokens),
		r.Status, opt(r.Error), opt(r.Phase), opt(r.Worker), nonEmpty(r.TimingQuality),
		r.Evidence.Source, r.Evidence.Line, serverIDs, spans, boolInt(lifecycleOK)}
}

func (w *writer) sessionRows() error {
	return w.table("sessions", 6, func(ins *inserter) error {
		for i, s := range w.sessions() {
			if err := ins.add(i, s.ID, relSeconds(s.StartNS), relSeconds(s.EndNS), len(s.Requests), len(s.Agents)); err != nil {
				return err
			}
		}
		return nil
	})
}

func evidenceLine(e lifecycle.Evidence) any {
	if e.Path == "" {
		return nil
	}
	return e.Line
}

func uniq(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func (w *writer) metrics(d *model.Dataset) error {
	return w.table("metric_series", 23, func(ins *inserter) error {
		for _, m := range d.Metrics {
			var labels any
			if len(m.Labels) > 0 {
				obj := make(map[string]string, len(m.Labels))
				for _, l := range m.Labels {
					obj[l.Key] = l.Value
				}
				b, _ := json.Marshal(obj) // map keys marshal sorted
				labels = string(b)
			}
			if err := ins.add(m.ID, m.Name, nonEmpty(m.Label), nonEmpty(m.Unit), nonEmpty(m.ValueKind), nonEmpty(m.Component), nonEmpty(m.Group),
				nonEmpty(m.Description), nonEmpty(m.RawName), nonEmpty(m.Endpoint), opt(m.Host), opt(m.GPU), opt(m.Worker), opt(m.Rank),
				opt(m.RankKind), opt(m.WorkerProcess), labels, nonEmpty(m.SourceKind), nonEmpty(m.Generator), nonEmpty(m.Temporal),
				opt(m.TimeResolutionS), m.Samples, m.Rows); err != nil {
				return err
			}
		}
		return nil
	})
}

// metricRowMax is the longest metric_points record: a header byte per
// column and its size, then at most 8 bytes a value.
const metricRowMax = 1 + 4 + 4*8

// metricRows encodes the exact rows of one series' summary, checked by
// order and handed to s, read through internal/pyramid one exact chunk's
// time span at a time: a query over (previous chunk's last time, this
// chunk's last time] returns each row once, also when rows share a
// timestamp across a chunk boundary.
func metricRows(m *model.MetricSeries, s *rowSink, order *keyOrder, r *record) error {
	if m.Summary == nil {
		return errors.New("no summary (the store is written from the build's dataset)")
	}
	gz, err := m.Summary.Payload.Bytes()
	if err != nil {
		return err
	}
	raw, err := shard.Decompress(gz)
	if err != nil {
		return err
	}
	p, err := pyramid.DecodeShard(raw)
	if err != nil {
		return err
	}
	from := int64(math.MinInt64)
	var v pyramid.View
	var lastT int64
	seq, first := 0, true
	for _, c := range p.Chunks() {
		if c.Level != -1 || c.Rows == 0 {
			continue
		}
		if err := p.QueryInto(&v, from, c.Last, max(1, (c.Rows+1)/2+1)); err != nil {
			return err
		}
		if !v.Exact {
			return fmt.Errorf("exact chunk %d answered in buckets", c.ID)
		}
		for k, t := range v.Times {
			// Event series may record several rows at one time; seq keeps
			// them apart in the key, in recorded order.
			if !first && t == lastT {
				seq++
			} else {
				seq = 0
			}
			first, lastT = false, t
			r.reset()
			r.int(int64(m.ID))
			r.real(relSeconds(t))
			r.int(int64(seq))
			if v.Valid[k] {
				r.real(v.Values[k])
			} else {
				r.null()
			}
			if err := order.next(r); err != nil {
				return err
			}
			if !s.add(r.bytes()) {
				return nil // the layout stopped, on an error of its own
			}
		}
		from = c.Last + 1
	}
	return nil
}

// WriteFile is Write for callers that need only the error (the report
// writer's store hook).
func WriteFile(path string, d *model.Dataset) error {
	_, err := Write(path, d)
	return err
}

// FileWriter is WriteFile taking the rows the import's join encoded
// (WriteFrom).
func FileWriter(tapped *EvidenceRows) func(path string, d *model.Dataset) error {
	return func(path string, d *model.Dataset) error {
		_, err := WriteFrom(path, d, tapped)
		return err
	}
}
