// Package sqlstore owns trace-data.sqlite, the report's local SQL store:
// the normalized evidence a build holds (requests, sessions, lifecycle
// stages, server spans, worker bindings, metric series and points, NVTX
// ranges, CPU samples, iterations, sources and warnings) as indexed tables
// for sqlite3, pandas and other local readers. The page never reads it.
//
// The store derives nothing itself: sessions come from model.GroupSessions,
// lifecycle stages from internal/lifecycle, metric rows from the series'
// internal/pyramid summaries, so its rows are the values the engine answers
// from. docs/format/sqlite.md documents every table.
package sqlstore
