// Package pyramid owns the multi-resolution summaries of one metric series:
// the exact rows plus a pyramid of power-of-two time buckets, so that a chart
// of any zoom reads a bounded number of buckets and rows instead of the whole
// series, and range statistics stay exact.
//
// A Builder is fed one series' points in time order and produces a Pyramid:
//
//   - exact rows: one per timestamp (sample and setting series: identical
//     duplicates count once, a null, a non-finite value or conflicting values
//     make the row a gap) or one per point (event series);
//   - levels of buckets of width 2^k ns for even k (each level 4× coarser
//     than the one below, the grid Perfetto's counter mipmap uses, so bucket
//     keys are stable across zooms). Each bucket carries count, gaps, sum and
//     first, last, min and max with the timestamp of a real sample, plus, for
//     a series paired with its limit, the highest usage and the samples
//     without a valid limit. A level stores every bucket once its buckets hold
//     MinBucketRows rows on average, and below that only the buckets that do;
//     rows of smaller buckets are read exactly, so no read is ever larger than
//     a few times MinBucketRows per bucket.
//
// Query answers a chart: exact rows when the range holds at most two per
// pixel, otherwise min/max envelopes of the coarsest power-of-two bucket
// giving at least two buckets per pixel, with exact statistics of the range.
// SummarizeCapacity answers the capacity legend (peak, limit, highest usage)
// with the same guarantees.
//
// Tables and Open/Load map a pyramid to and from internal/shard tables in
// chunks with time bounds, so a reader loads only the chunks a view needs;
// a query on a partly loaded pyramid either answers exactly or names the
// chunks it still needs (IncompleteError). The layout is documented in
// layout.md in this directory.
//
// The package runs in the native CLI and in the browser's Go wasm engine. It
// imports the standard library and internal/shard only.
package pyramid
