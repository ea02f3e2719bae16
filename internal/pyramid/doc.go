// Package pyramid owns the multi-resolution summaries of one metric series:
// its exact rows plus levels of power-of-two time buckets, so that a chart at
// any zoom reads a bounded number of buckets and rows instead of the whole
// series, and range statistics stay exact.
//
// A Builder is fed one series' points in time order and produces a Pyramid:
//
//   - exact rows: one per timestamp for Sample and Setting series (identical
//     duplicates count once; a null, a non-finite value or conflicting values
//     make the row a gap) or one per point for Event series; a Setting
//     series also keeps the distinct points of a timestamp whose points
//     disagree (conflicting settings stay separate points, conflicts.go);
//   - levels of buckets of width 2^k ns for even k, each 4× coarser than the
//     one below (the power-of-two grid of Perfetto's counter mipmap, so keys
//     are stable across zooms). A bucket carries count, gaps, a derived sum
//     and first, last, min and max as real samples with their timestamps;
//     paired with a limit series, also the highest usage and the samples
//     without a valid limit. A level whose buckets hold MinBucketRows rows on
//     average stores them all; finer levels store only the buckets that hold
//     that many, and rows of smaller buckets are read exactly.
//
// Query answers a chart: the exact rows when the range holds at most two per
// pixel, otherwise min/max envelopes of the coarsest power-of-two bucket
// giving at least two buckets per pixel, with exact statistics of the range
// built from whole buckets and exact rows only at the two edges and in
// buckets too small to be stored. SummarizeCapacity answers the capacity
// legend (peak, limit, highest usage) the same way.
//
// Tables, Open and Load map a pyramid to and from internal/shard tables in
// chunks with time bounds, so a reader loads only the chunks a view needs; a
// query on a partly loaded pyramid either answers exactly or returns an
// IncompleteError naming the chunks still needed; OpenShardLazy and
// OpenShardFrames open a shard so, decoding its chunks when filled. The
// model, the layout and measured costs are in layout.md in this directory.
//
// The package runs in the native CLI and in the browser's Go wasm engine. It
// imports the standard library and internal/shard only.
package pyramid
