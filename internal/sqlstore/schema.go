package sqlstore

// Version is the store's physical version, kept in PRAGMA user_version.
// A change an older reader could not read bumps it (docs/format/sqlite.md).
const Version = 1

// WITHOUT ROWID tables declare no NOT NULL beyond their keys: sqlite3
// 3.40 (Debian 12) reports every non-key NOT NULL column of such a table
// as NULL in PRAGMA integrity_check, which would alarm a reader checking
// the file. The writer never leaves those columns NULL.
//
// Evidence is a source id (sources.id) and a line; path holds the file
// only when no source of that path is registered.
//
// Times are seconds from meta.origin_ns (REAL), computed as the engine
// computes them, so a value read here equals the one `dsight query` prints.
// Unknown values are NULL, never 0.
var tables = []string{
	`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID`,
	`CREATE TABLE audit(key TEXT PRIMARY KEY, value INTEGER) WITHOUT ROWID`,
	`CREATE TABLE sources(id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL, bytes INTEGER NOT NULL, sha256 TEXT NOT NULL)`,
	`CREATE TABLE warnings(ordinal INTEGER PRIMARY KEY, kind TEXT NOT NULL, text TEXT NOT NULL)`,
	`CREATE TABLE unread(path TEXT PRIMARY KEY) WITHOUT ROWID`,
	`CREATE TABLE requests(ordinal INTEGER PRIMARY KEY, id TEXT NOT NULL, session TEXT NOT NULL, agent TEXT NOT NULL,
		parent TEXT, conversation TEXT, source_trace TEXT, turn INTEGER, depth INTEGER NOT NULL,
		start REAL NOT NULL, "end" REAL NOT NULL, first_token REAL, ttft_ms REAL,
		input_tokens INTEGER, output_tokens INTEGER, cached_tokens INTEGER,
		status TEXT NOT NULL, error TEXT, phase TEXT, client_worker TEXT, timing_quality TEXT,
		source INTEGER NOT NULL, line INTEGER NOT NULL,
		server_ids TEXT, span_count INTEGER, lifecycle_available INTEGER NOT NULL)`,
	`CREATE TABLE request_workers(worker TEXT, request INTEGER, PRIMARY KEY(worker, request)) WITHOUT ROWID`,
	`CREATE TABLE sessions(ordinal INTEGER PRIMARY KEY, id TEXT NOT NULL, start REAL NOT NULL, "end" REAL NOT NULL,
		requests INTEGER NOT NULL, agents INTEGER NOT NULL)`,
	`CREATE TABLE lifecycle_stages(request INTEGER, ordinal INTEGER, id TEXT, name TEXT,
		kind TEXT, row INTEGER, label TEXT, start REAL, "end" REAL,
		role TEXT, host TEXT, to_label TEXT, source_span_id TEXT,
		evidence_source INTEGER, evidence_path TEXT, evidence_line INTEGER, evidence_ordinal INTEGER,
		PRIMARY KEY(request, ordinal)) WITHOUT ROWID`,
	`CREATE TABLE server_spans(ordinal INTEGER PRIMARY KEY, request INTEGER, trace_id TEXT NOT NULL, span_id TEXT NOT NULL,
		parent_span_id TEXT, name TEXT NOT NULL, kind TEXT NOT NULL, role TEXT NOT NULL, start REAL NOT NULL, "end" REAL NOT NULL,
		status_code INTEGER NOT NULL, status_message TEXT, service TEXT, dynamo_request_id TEXT, process TEXT,
		join_kind TEXT, worker TEXT, worker_basis TEXT, source INTEGER, path TEXT, line INTEGER NOT NULL, span_ordinal INTEGER NOT NULL)`,
	`CREATE TABLE worker_bindings(request INTEGER, ordinal INTEGER, worker TEXT, host TEXT, role TEXT,
		server_id TEXT, process TEXT, basis TEXT, ambiguous INTEGER, source INTEGER, path TEXT, line INTEGER,
		PRIMARY KEY(request, ordinal)) WITHOUT ROWID`,
	`CREATE TABLE metric_series(id INTEGER PRIMARY KEY, name TEXT NOT NULL, label TEXT, unit TEXT, value_kind TEXT,
		component TEXT, "group" TEXT, description TEXT, raw_name TEXT, endpoint TEXT,
		host TEXT, gpu TEXT, worker TEXT, rank TEXT, rank_kind TEXT, worker_process TEXT, labels TEXT,
		source_kind TEXT, generator TEXT, temporal TEXT, time_resolution_s REAL, samples INTEGER NOT NULL, rows INTEGER NOT NULL)`,
	`CREATE TABLE metric_points(series INTEGER, time REAL, seq INTEGER, value REAL,
		PRIMARY KEY(series, time, seq)) WITHOUT ROWID`,
	`CREATE TABLE profiles(id INTEGER PRIMARY KEY, source INTEGER NOT NULL, file TEXT NOT NULL, mapped INTEGER NOT NULL,
		worker TEXT NOT NULL, role TEXT, "index" INTEGER, engine INTEGER, rank INTEGER, gpus TEXT, host TEXT,
		epoch_ns TEXT NOT NULL, ranges INTEGER NOT NULL, selected INTEGER NOT NULL, "limit" INTEGER NOT NULL,
		truncated INTEGER NOT NULL, cpu_samples INTEGER NOT NULL)`,
	`CREATE TABLE nvtx_names(profile INTEGER, id INTEGER, name TEXT, PRIMARY KEY(profile, id)) WITHOUT ROWID`,
	// "end" is computed, not stored (nvtxend.go): an 8-byte REAL in each of
	// 10M rows was a quarter of an Nsight store.
	`CREATE TABLE nvtx_ranges(profile INTEGER, bucket INTEGER, start REAL,
		"end" REAL GENERATED ALWAYS AS (coalesce(end_exact, (round(start * 1e9) + duration_ns) / 1e9)) VIRTUAL,
		name INTEGER, thread INTEGER, source_row INTEGER, duration_ns INTEGER, end_exact REAL,
		PRIMARY KEY(profile, bucket, start, source_row)) WITHOUT ROWID`,
	`CREATE TABLE nvtx_threads(profile INTEGER, id INTEGER, global_tid INTEGER, pid INTEGER, tid INTEGER, name TEXT,
		PRIMARY KEY(profile, id)) WITHOUT ROWID`,
	`CREATE TABLE nvtx_durations(profile INTEGER, bucket INTEGER, maximum REAL,
		PRIMARY KEY(profile, bucket)) WITHOUT ROWID`,
	`CREATE TABLE cpu_samples(profile INTEGER, time REAL, ordinal INTEGER, thread INTEGER,
		stack INTEGER, source_id INTEGER, PRIMARY KEY(profile, time, ordinal)) WITHOUT ROWID`,
	`CREATE TABLE cpu_frames(profile INTEGER, stack INTEGER, depth INTEGER, symbol TEXT,
		PRIMARY KEY(profile, stack, depth)) WITHOUT ROWID`,
	iterationsTable(),
}

// indexes are created after the rows are in: one sorted build per index
// is cheaper than keeping each up to date row by row.
var indexes = []string{
	`CREATE INDEX requests_window ON requests(start, "end")`,
	`CREATE INDEX requests_id ON requests(id)`,
	`CREATE INDEX requests_session ON requests(session, start)`,
	`CREATE INDEX server_spans_request ON server_spans(request)`,
	`CREATE INDEX server_spans_window ON server_spans(start)`,
	`CREATE INDEX worker_bindings_worker ON worker_bindings(worker)`,
	`CREATE INDEX metric_series_name ON metric_series(name, worker)`,
	`CREATE INDEX iterations_window ON iterations(worker, start)`,
}
