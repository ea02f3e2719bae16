package dynamolog

import (
	"bytes"
	"io"
)

// Binding records that a worker process handled a Dynamo request: the
// request UUID with the host, role and process epoch the worker recorded.
// It is distinct from engine-local request ids.
type Binding struct {
	ServerID string // dynamo.request.id (a UUID)
	Host     string // dynamo.instance.id as recorded
	Role     string // dynamo.operation.role, canonical ("aggregated" → "agg")
	// RecordedRole is the role exactly as the line wrote it.
	RecordedRole string
	Process      string // dynamo.process.epoch
	Encoding     Encoding
	Time         *Timestamp
	Ref          Ref // the first line recording this binding
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
	Ref        Ref
	// ClientReused: this file maps the same client id to more than one
	// request id (a restarted process, or ids the file cannot tell apart).
	ClientReused bool
}

// WorkerLog is what one worker log contributed.
type WorkerLog struct {
	Path  string
	Lines int64
	Bytes int64
	// Candidates counts lines containing "dynamo.request.id" or
	// "Engine ID map"; only they are decoded.
	Candidates int64
	// Undecodable counts candidate lines that start with '{' but are not a
	// JSON object (or whose quoted text value is not a JSON string).
	Undecodable int64
	// IncompleteBindings counts decoded lines naming dynamo.request.id
	// without all of a UUID, host, role and process epoch.
	IncompleteBindings int64
	Bindings           []Binding
	EngineMaps         []EngineMap
}

var (
	requestMarker = []byte(keyNames[keyDynamoRequest])
	engineMarker  = []byte("Engine ID map: ")
)

// ScanWorker reads a worker log with default options.
func ScanWorker(r io.Reader, path string) (*WorkerLog, error) {
	return Options{}.ScanWorker(r, path)
}

// ScanWorker reads the worker bindings and engine id maps of a worker log,
// in line order. Whether a binding's host and role match the file name is
// the caller's check.
func (o Options) ScanWorker(r io.Reader, path string) (*WorkerLog, error) {
	log := &WorkerLog{Path: path}
	index := map[[4]string]int{} // (request, host, role, process) → binding
	var err error
	log.Lines, log.Bytes, err = eachLine(r, path, o.MaxLineBytes, func(line []byte, n int64) error {
		hasRequest := bytes.Contains(line, requestMarker)
		hasEngine := bytes.Contains(line, engineMarker)
		if !hasRequest && !hasEngine {
			return nil
		}
		log.Candidates++
		f, ok := readFields(line)
		if !ok {
			log.Undecodable++
			if f.encoding == EncodingJSON {
				return nil
			}
		}
		if hasRequest && ok {
			if b, ok := bindingFrom(&f); ok {
				key := [4]string{b.ServerID, b.Host, b.Role, b.Process}
				if i, seen := index[key]; seen {
					log.Bindings[i].Repeats++
				} else {
					b.Ref = Ref{Path: path, Line: n}
					if f.encoding == EncodingJSON {
						b.Time = recordTimestamp(&f)
					} else {
						b.Time = lineTimestamp(line)
					}
					index[key] = len(log.Bindings)
					log.Bindings = append(log.Bindings, b)
				}
			} else {
				log.IncompleteBindings++
			}
		}
		if hasEngine {
			if m, ok := engineMapFrom(line, &f); ok {
				m.Ref = Ref{Path: path, Line: n}
				log.EngineMaps = append(log.EngineMaps, m)
			}
		}
		return nil
	})
	markReusedClients(log.EngineMaps)
	return log, err
}

// bindingFrom reads a binding: a UUID request id and non-empty string host,
// role and process epoch.
func bindingFrom(f *lineFields) (Binding, bool) {
	server, ok1 := f.str(keyDynamoRequest)
	host, ok2 := f.str(keyInstance)
	role, ok3 := f.str(keyRole)
	process, ok4 := f.str(keyEpoch)
	if !ok1 || !ok2 || !ok3 || !ok4 || !isUUID(server) {
		return Binding{}, false
	}
	return Binding{
		ServerID: server, Host: host, Role: canonicalRole(role), RecordedRole: role,
		Process: process, Encoding: f.encoding,
	}, true
}

// engineMapFrom reads "Engine ID map: request_id=<tok> trtllm_client_id=<tok>
// disagg_request_id=<tok>" (tokens are runs of non-space). In a JSON record
// the row is read from the message field, so JSON punctuation never ends up
// inside a token; a text line is searched whole.
func engineMapFrom(line []byte, f *lineFields) (EngineMap, bool) {
	text := line
	enc := EncodingText
	if f.encoding == EncodingJSON {
		msg, ok := f.str(keyMessage)
		if !ok {
			return EngineMap{}, false
		}
		text, enc = []byte(msg), EncodingJSON
	}
	for from := 0; ; {
		i := bytes.Index(text[from:], engineMarker)
		if i < 0 {
			return EngineMap{}, false
		}
		at := from + i + len(engineMarker)
		rest := text[at:]
		server, rest, ok1 := token(rest, "request_id=")
		client, rest, ok2 := token(rest, " trtllm_client_id=")
		disagg, _, ok3 := token(rest, " disagg_request_id=")
		if ok1 && ok2 && ok3 {
			m := EngineMap{ServerID: server, ClientID: client, Encoding: enc, ObservedAt: firstOffsetTimestamp(line)}
			if disagg != "None" {
				m.DisaggID = &disagg
			}
			return m, true
		}
		from = at
	}
}

// token reads prefix followed by a run of non-space characters.
func token(b []byte, prefix string) (string, []byte, bool) {
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return "", nil, false
	}
	b = b[len(prefix):]
	end := 0
	// Tokens end at ASCII whitespace; a non-ASCII space inside an id stays
	// part of the recorded token.
	for end < len(b) && !isASCIISpace(b[end]) {
		end++
	}
	if end == 0 {
		return "", nil, false
	}
	return string(b[:end]), b[end:], true
}

// markReusedClients flags engine maps whose client id maps to more than one
// request id within the file.
func markReusedClients(maps []EngineMap) {
	serverOf := map[string]string{}
	reused := map[string]bool{}
	for _, m := range maps {
		if s, ok := serverOf[m.ClientID]; !ok {
			serverOf[m.ClientID] = m.ServerID
		} else if s != m.ServerID {
			reused[m.ClientID] = true
		}
	}
	for i := range maps {
		maps[i].ClientReused = reused[maps[i].ClientID]
	}
}
