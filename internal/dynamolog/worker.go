package dynamolog

import (
	"bytes"
	"github.com/dsight/dsight/internal/model"
	"io"
)

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
	// FirstUndecodable is the line of the first of them (0 when none), so
	// the build's warning names where to look.
	FirstUndecodable int64
	// IncompleteBindings counts decoded lines naming dynamo.request.id
	// without all of a UUID, host, role and process epoch.
	IncompleteBindings int64
	// BadTimes counts bindings whose timestamp breaks the plausibility
	// rule (see MinYear); FirstBadTime is the first one's line.
	BadTimes, FirstBadTime int64
	Bindings               []model.ProcessBinding
	EngineMaps             []model.EngineMap
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
	var same interned
	var fields fieldReader
	var err error
	log.Lines, log.Bytes, err = eachLine(r, path, o.MaxLineBytes, func(line []byte, n int64) error {
		hasRequest := bytes.Contains(line, requestMarker)
		hasEngine := bytes.Contains(line, engineMarker)
		if !hasRequest && !hasEngine {
			return nil
		}
		log.Candidates++
		f, ok := fields.readFields(line)
		if !ok {
			if log.Undecodable++; log.FirstUndecodable == 0 {
				log.FirstUndecodable = n
			}
			if f.encoding == model.EncodingJSON {
				return nil
			}
		}
		if hasRequest && ok {
			if b, ok := bindingFrom(&f); ok {
				key := [4]string{b.ServerID, b.Host, b.Role, b.Process}
				if i, seen := index[key]; seen {
					log.Bindings[i].Repeats++
				} else {
					b.Ref = model.LineRef{Path: path, Line: n}
					b.Host, b.Role, b.RecordedRole, b.Process = same.of(b.Host), same.of(b.Role), same.of(b.RecordedRole), same.of(b.Process)
					if f.encoding == model.EncodingJSON {
						b.Time = recordTimestamp(&f)
					} else {
						b.Time = lineTimestamp(line)
					}
					if BadTime(b.Time) {
						if log.BadTimes++; log.FirstBadTime == 0 {
							log.FirstBadTime = n
						}
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
				m.Ref = model.LineRef{Path: path, Line: n}
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
func bindingFrom(f *lineFields) (model.ProcessBinding, bool) {
	server, ok1 := f.str(keyDynamoRequest)
	host, ok2 := f.str(keyInstance)
	role, ok3 := f.str(keyRole)
	process, ok4 := f.str(keyEpoch)
	if !ok1 || !ok2 || !ok3 || !ok4 || !isUUID(server) {
		return model.ProcessBinding{}, false
	}
	return model.ProcessBinding{
		ServerID: server, Host: host, Role: model.CanonicalRole(role), RecordedRole: role,
		Process: process, Encoding: f.encoding,
	}, true
}

// engineMapFrom reads "Engine ID map: request_id=<tok> trtllm_client_id=<tok>
// disagg_request_id=<tok>" (tokens are runs of non-space). In a JSON record
// the row is read from the message field, so JSON punctuation never ends up
// inside a token; a text line is searched whole.
func engineMapFrom(line []byte, f *lineFields) (model.EngineMap, bool) {
	text := line
	enc := model.EncodingText
	if f.encoding == model.EncodingJSON {
		msg, ok := f.str(keyMessage)
		if !ok {
			return model.EngineMap{}, false
		}
		text, enc = []byte(msg), model.EncodingJSON
	}
	for from := 0; ; {
		i := bytes.Index(text[from:], engineMarker)
		if i < 0 {
			return model.EngineMap{}, false
		}
		at := from + i + len(engineMarker)
		rest := text[at:]
		server, rest, ok1 := token(rest, "request_id=")
		client, rest, ok2 := token(rest, " trtllm_client_id=")
		disagg, _, ok3 := token(rest, " disagg_request_id=")
		if ok1 && ok2 && ok3 {
			m := model.EngineMap{ServerID: server, ClientID: client, Encoding: enc, ObservedAt: firstOffsetTimestamp(line)}
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
func markReusedClients(maps []model.EngineMap) {
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
