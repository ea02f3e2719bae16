// Package lifecycle joins server evidence to client requests and derives
// each request's lifecycle: the cumulative milestone breakdown of its client
// wall time, with the raw server activity kept beside it.
//
// Join uses recorded identities only, never time proximity:
//
//   - a frontend bridge maps the client's explicit request header to a
//     Dynamo request UUID (a UUID bridged from two known clients is an
//     error; a client bridged to several UUIDs keeps them all);
//   - a span joins through its dynamo.request.id when that UUID is bridged,
//     or, when it records no request id, through a trace that exactly one
//     client request is linked to;
//   - a span is linked to a worker by an explicit process binding (request,
//     host, role and process epoch recorded in a worker log, or an Engine ID
//     map), else by the weaker, labeled basis of a unique recorded host and
//     role. Conflicting bindings stay as evidence and never pick a worker.
//
// No clock is corrected and no cross-host skew is estimated. Derive turns a
// joined request into the contract's lifecycle model (§3.6 of the reference
// behaviour): supported activities with their parents, candidate milestones
// that are unique and inside client TTFT, and stages that partition the
// client request exactly. Any doubt (repeated milestones, several server
// attempts, inverted or escaping activities, unusable first-token timing)
// discards the server milestones; client timing and raw spans remain.
//
// Everything here is a pure function of its arguments: no I/O, no clock,
// no map order in the output. Join works in exact epoch nanoseconds; the
// records it renders for the report are seconds relative to a Frame's
// origin, with evidence resolved through the Frame's source ids.
//
// The package imports the standard library and the parsers whose records it
// joins: internal/otlp, internal/dynamolog and internal/sourcename.
package lifecycle
