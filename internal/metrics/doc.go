// Package metrics reads a run's metric evidence — Tachometer captures and
// metrics generated from worker logs — into one normalized catalog and, per
// series, its metadata and a finished multi-resolution summary
// (internal/pyramid) encoded as a shard payload.
//
// It owns the choices that join the two sources: which files are read
// (tachometer/local below the log directory or an explicit --metrics path,
// with the log directory's tachometer_config.toml as a collector_config
// source; worker logs named by the importer), the log-metric generators
// (Generators, the one list), the time frame (points are rebased
// onto the run origin; points outside the window are catalogued but not
// kept, except the setting held when the window starts), series ids and
// display order, and the pairing of capacity series with their limits
// (built with pyramid Options.Limit so usage stays exact at any zoom).
// Registering files as sources stays with the importer, through a callback.
// The importer also opens the files itself, so that each is opened once per
// build: it finds the capture by these rules among the files of its one walk
// of the run and reads each worker log's log metrics in its one pass over
// the log (Sources), and reads the collector configuration through
// Options.ReadFile; Read alone finds and opens them for callers that have
// not.
//
// A capture is read in two passes (spill.go): the read spills each series'
// points, compactly encoded, to a file in its own os.MkdirTemp directory
// (unlinked once open where the system allows it, else removed on every
// return), then series are summarized one at a time per
// core. Memory during the read is a 4 KiB buffer per series, not the points;
// afterwards it is the encoded summaries, kept in a temporary file until the
// report writer packs them into its scripts. The result does not depend
// on the spill: the same points reach each summary in the same order.
//
// Imports: internal/model, internal/shard, internal/pyramid,
// internal/tachometer, internal/logmetric and its adapters (internal/sglang,
// internal/tokenspeed), internal/sourcename.
package metrics
