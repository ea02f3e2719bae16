// Package lifecycle derives a traced request's lifecycle from its joined
// server evidence: the cumulative milestone breakdown of its client wall
// time (§3.6 of the reference behaviour), with the supported activities and
// their parents kept beside it. It also owns the vocabulary of lifecycle
// activities (labels, kinds and what each measures).
//
// Derive keeps a milestone only when exactly one span can supply it, inside
// client TTFT; stages partition the client request exactly. Any doubt
// (repeated milestones, several server attempts, inverted or escaping
// activities, unusable first-token timing) discards the server milestones;
// client timing and raw spans remain. No clock is corrected.
//
// Everything here is a pure function of internal/model values: no I/O, no
// clock, no map order, and no presentation — the results are plain values
// in exact epoch nanoseconds, which internal/query shapes for every surface.
// The package imports only internal/model, so the page's engine can derive
// lifecycles without linking any input reader.
package lifecycle
