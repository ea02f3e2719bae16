package nsys

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/sourcename"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DefaultMaxEvents is the default import limit per profile. The reference
// stops at 250,000; the report holds ten million NVTX ranges a profile
// interactively, in detail shards.
const DefaultMaxEvents = 10_000_000

// Options tune a read.
type Options struct {
	// MaxEvents bounds the ranges kept per profile (0: DefaultMaxEvents).
	MaxEvents int64
}

// Read reads the export at path. name is the path as the report lists it
// (relative to the run); its base name carries the identity. A file that
// is not SQLite, or lacks the session anchor or the capture window, is an
// error naming the file; a missing NVTX or string table is named in the
// profile's schema and leaves it without ranges.
func Read(path, name string, opt Options) (*model.Profile, error) {
	p, _, err := readProfile(path, name, opt, true)
	return p, err
}

// readProfile is Read; fromFile false reads NVTX_EVENTS through the driver
// only. It also says whether the file-format reader read the table.
func readProfile(path, name string, opt Options, fromFile bool) (*model.Profile, bool, error) {
	if opt.MaxEvents <= 0 {
		opt.MaxEvents = DefaultMaxEvents
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_pragma=query_only(1)")
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", name, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	r := &reader{db: db, path: path, fromFile: fromFile, name: name, p: &model.Profile{File: name, Limit: opt.MaxEvents}}
	if err := r.read(); err != nil {
		return nil, r.fileRead, fmt.Errorf("%s: %w", name, err)
	}
	return r.p, r.fileRead, nil
}

type reader struct {
	db       *sql.DB
	path     string
	fromFile bool // NVTX_EVENTS read with the file-format reader when it can
	fileRead bool // and it did
	name     string
	p        *model.Profile
	tables   map[string]map[string]bool // table → its columns
	names    map[int64]string           // StringIds
}

func (r *reader) read() error {
	if err := r.loadSchema(); err != nil {
		return err
	}
	identify(r.p, filepath.Base(r.name))
	if err := r.anchor(); err != nil {
		return err
	}
	if err := r.capture(); err != nil {
		return err
	}
	if err := r.stringIDs(); err != nil {
		return err
	}
	if err := r.host(); err != nil {
		return err
	}
	r.p.CUDA = r.has("CUPTI_ACTIVITY_KIND_KERNEL")
	if err := r.diagnostics(); err != nil {
		return err
	}
	if err := r.ranges(); err != nil {
		return err
	}
	if err := r.cpu(); err != nil {
		return err
	}
	if err := r.threads(); err != nil {
		return err
	}
	sort.Strings(r.p.Schema.Missing)
	return nil
}

// The tables the reader uses, for the schema report.
var known = []string{"NVTX_EVENTS", "StringIds", "TARGET_INFO_SESSION_START_TIME", "ANALYSIS_DETAILS",
	"TARGET_INFO_SYSTEM_ENV", "ThreadNames", "CUPTI_ACTIVITY_KIND_KERNEL", "DIAGNOSTIC_EVENT",
	"COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS"}

func (r *reader) loadSchema() error {
	rows, err := r.db.Query(`SELECT name FROM sqlite_master WHERE type IN ('table','view')`)
	if err != nil {
		return fmt.Errorf("not a readable SQLite export: %w", err)
	}
	var all []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		all = append(all, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("not a readable SQLite export: %w", err)
	}
	r.tables = map[string]map[string]bool{}
	for _, t := range all {
		if !slices.Contains(known, t) {
			continue
		}
		cols := map[string]bool{}
		info, err := r.db.Query(`SELECT name FROM pragma_table_info(?)`, t)
		if err != nil {
			return err
		}
		for info.Next() {
			var c string
			if err := info.Scan(&c); err != nil {
				info.Close()
				return err
			}
			cols[c] = true
		}
		info.Close()
		r.tables[t] = cols
		r.p.Schema.Tables = append(r.p.Schema.Tables, t)
	}
	sort.Strings(r.p.Schema.Tables)
	return nil
}

func (r *reader) has(table string) bool { _, ok := r.tables[table]; return ok }

// need reports whether table has every column, naming what is missing.
func (r *reader) need(table string, cols ...string) bool {
	t, ok := r.tables[table]
	if !ok {
		r.missing(table)
		return false
	}
	all := true
	for _, c := range cols {
		if !t[c] {
			r.missing(table + "." + c)
			all = false
		}
	}
	return all
}

func (r *reader) missing(what string) {
	if !slices.Contains(r.p.Schema.Missing, what) {
		r.p.Schema.Missing = append(r.p.Schema.Missing, what)
	}
}

// identify fills the filename identity; names outside the grammar stay
// unmapped.
func identify(p *model.Profile, base string) {
	p.Worker = model.ProfileUnmapped
	id, ok := sourcename.Parse(base)
	if !ok || id.Ext != "sqlite" {
		return
	}
	p.Mapped = true
	p.Worker = id.Worker
	role, index, host := id.Role, id.Index, id.Host
	p.Role, p.Index = &role, &index
	p.Engine, p.Rank, p.GPUs, p.Window = id.Engine, id.Rank, id.GPUs, id.Window
	p.Host, p.HostSource = &host, "filename"
}

// errNoAnchor is the error of a profile that cannot be placed in time.
var errNoAnchor = errors.New("no session anchor")

func (r *reader) anchor() error {
	const t = "TARGET_INFO_SESSION_START_TIME"
	if !r.need(t, "utcEpochNs") {
		return fmt.Errorf("%w: the export has no %s.utcEpochNs, so its times cannot be placed in UTC", errNoAnchor, t)
	}
	q := `SELECT utcEpochNs, NULL FROM ` + t + ` ORDER BY rowid LIMIT 1`
	if r.tables[t]["systemClockNs"] {
		q = `SELECT utcEpochNs, systemClockNs FROM ` + t + ` ORDER BY rowid LIMIT 1`
	} else {
		r.missing(t + ".systemClockNs")
	}
	var epoch, clock sql.NullInt64
	err := r.db.QueryRow(q).Scan(&epoch, &clock)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !epoch.Valid {
		return fmt.Errorf("%w: %s has no utcEpochNs value, so its times cannot be placed in UTC", errNoAnchor, t)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", t, err)
	}
	r.p.EpochNS = epoch.Int64
	if clock.Valid {
		c := clock.Int64
		r.p.SystemClockNS = &c
	}
	return nil
}

func (r *reader) capture() error {
	const t = "ANALYSIS_DETAILS"
	if !r.need(t, "startTime", "stopTime") {
		return fmt.Errorf("no capture window: the export has no %s.startTime and stopTime", t)
	}
	var start, stop sql.NullInt64
	err := r.db.QueryRow(`SELECT startTime, stopTime FROM `+t+` ORDER BY rowid LIMIT 1`).Scan(&start, &stop)
	if errors.Is(err, sql.ErrNoRows) || err == nil && (!start.Valid || !stop.Valid) {
		return fmt.Errorf("no capture window: %s has no startTime and stopTime", t)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", t, err)
	}
	var clock int64
	if r.p.SystemClockNS != nil {
		clock = *r.p.SystemClockNS
	}
	r.p.Capture = [2]int64{start.Int64 - clock, stop.Int64 - clock}
	if r.p.Capture[1] < r.p.Capture[0] {
		return fmt.Errorf("%s stops (%d) before it starts (%d)", t, stop.Int64, start.Int64)
	}
	return nil
}

func (r *reader) stringIDs() error {
	r.names = map[int64]string{}
	if !r.need("StringIds", "id", "value") {
		return nil
	}
	rows, err := r.db.Query(`SELECT id, value FROM StringIds`)
	if err != nil {
		return fmt.Errorf("StringIds: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var v sql.NullString
		if err := rows.Scan(&id, &v); err != nil {
			return fmt.Errorf("StringIds: %w", err)
		}
		if v.Valid {
			r.names[id] = v.String
		}
	}
	return rows.Err()
}

func (r *reader) host() error {
	if !r.has("TARGET_INFO_SYSTEM_ENV") || !r.need("TARGET_INFO_SYSTEM_ENV", "name", "value") {
		return nil
	}
	var h sql.NullString
	err := r.db.QueryRow(`SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name IN ('Hostname','HostName') AND value <> '' ORDER BY rowid LIMIT 1`).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("TARGET_INFO_SYSTEM_ENV: %w", err)
	}
	if h.Valid {
		s := h.String
		r.p.Host, r.p.HostSource = &s, "system environment"
	}
	return nil
}

func (r *reader) diagnostics() error {
	if !r.has("DIAGNOSTIC_EVENT") || !r.need("DIAGNOSTIC_EVENT", "text", "severity") {
		return nil
	}
	rows, err := r.db.Query(`SELECT text FROM DIAGNOSTIC_EVENT WHERE severity IN (2,3) AND text IS NOT NULL ORDER BY rowid`)
	if err != nil {
		return fmt.Errorf("DIAGNOSTIC_EVENT: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return fmt.Errorf("DIAGNOSTIC_EVENT: %w", err)
		}
		if !slices.Contains(r.p.Diagnostics, s) {
			r.p.Diagnostics = append(r.p.Diagnostics, s)
		}
	}
	return rows.Err()
}

// threads lists the threads of the kept ranges and samples, with the
// names ThreadNames records (the highest priority name when several).
func (r *reader) threads() error {
	seen := map[int64]bool{}
	var tids []int64
	add := func(g int64) {
		if !seen[g] {
			seen[g] = true
			tids = append(tids, g)
		}
	}
	for _, x := range r.p.Ranges {
		add(x.GlobalTID)
	}
	if r.p.CPU != nil {
		for _, s := range r.p.CPU.Samples {
			add(s.GlobalTID)
		}
	}
	slices.Sort(tids)
	names := map[int64]string{}
	if len(tids) > 0 && r.has("ThreadNames") && r.need("ThreadNames", "nameId", "globalTid") {
		q := `SELECT globalTid, nameId FROM ThreadNames ORDER BY rowid`
		if r.tables["ThreadNames"]["priority"] {
			q = `SELECT globalTid, nameId FROM ThreadNames ORDER BY priority, rowid`
		}
		rows, err := r.db.Query(q)
		if err != nil {
			return fmt.Errorf("ThreadNames: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var g, id sql.NullInt64
			if err := rows.Scan(&g, &id); err != nil {
				return fmt.Errorf("ThreadNames: %w", err)
			}
			if v, ok := r.names[id.Int64]; ok && g.Valid && id.Valid && seen[g.Int64] {
				names[g.Int64] = v // a later (higher priority) row wins
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	r.p.Threads = make([]model.ProfileThread, len(tids))
	for k, g := range tids {
		r.p.Threads[k].GlobalTID = g
		if v, ok := names[g]; ok {
			r.p.Threads[k].Name = &v
		}
	}
	return nil
}
