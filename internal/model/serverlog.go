package model

import "strconv"

// LineRef locates a value in a line-oriented source: the file (as the
// parser was given it: run-relative, slash-separated) and the 1-based line.
type LineRef struct {
	Path string
	Line int64
}

func (r LineRef) String() string { return r.Path + ":" + strconv.FormatInt(r.Line, 10) }

// Encoding names how a log line was written.
type Encoding string

// Line encodings.
const (
	EncodingText Encoding = "text" // key=value pairs in readable output
	EncodingJSON Encoding = "json" // one JSON object (DYN_LOGGING_JSONL)
)

// Timestamp is a time as a log line recorded it.
type Timestamp struct {
	// Raw is the recorded text, unchanged.
	Raw string
	// UnixNS is the exact epoch nanosecond value when Raw carries a UTC
	// offset or "Z"; nil for local times, whose zone the line does not say.
	UnixNS *int64
}

// Bridge records that a frontend line carried both the client's request
// header and the Dynamo request UUID it was served as.
type Bridge struct {
	ClientID string // x_request_id as recorded
	ServerID string // Dynamo request UUID
	// ServerKey is the field the UUID came from: "dynamo.request.id", or
	// the legacy "request_id" when the line had no dynamo.request.id.
	ServerKey string
	Encoding  Encoding
	Time      *Timestamp // the line's recorded timestamp, if any
	Ref       LineRef    // the first line recording this pair
	// Repeats counts later lines of the same file with the same pair.
	Repeats int
	// AlsoOnLine lists other values the server key had on the same text
	// line. The last value is the one used, as in the reference reader;
	// the others stay visible instead of silently disappearing.
	AlsoOnLine []string
	// ClientAmbiguous: this client id is bridged to more than one UUID
	// (retries, or a reused header). ServerConflict: this UUID is bridged
	// from more than one client id.
	ClientAmbiguous bool
	ServerConflict  bool
}

// ProcessBinding records that a worker process handled a Dynamo request:
// the request UUID with the host, role and process epoch the worker
// recorded on one log line. It is distinct from engine-local request ids.
type ProcessBinding struct {
	ServerID string // dynamo.request.id (a UUID)
	Host     string // dynamo.instance.id as recorded
	Role     string // dynamo.operation.role, canonical ("aggregated" → "agg")
	// RecordedRole is the role exactly as the line wrote it.
	RecordedRole string
	Process      string // dynamo.process.epoch
	Encoding     Encoding
	Time         *Timestamp
	Ref          LineRef // the first line recording this binding
	// Repeats counts later lines of the same file with the same request,
	// host, role and process.
	Repeats int
}

// EngineMap is one TensorRT-LLM "Engine ID map" row: the Dynamo request id,
// the engine's process-local client id, and the disaggregated request id.
// It is observed after submission.
type EngineMap struct {
	ServerID string  // request_id as recorded (normally a UUID)
	ClientID string  // trtllm_client_id, a per-process counter
	DisaggID *string // disagg_request_id; nil when recorded as None
	// ObservedAt is the first timestamp with an explicit offset on the line.
	ObservedAt *Timestamp
	Encoding   Encoding
	Ref        LineRef
	// ClientReused: this file maps the same client id to more than one
	// request id (a restarted process, or ids the file cannot tell apart).
	ClientReused bool
}
