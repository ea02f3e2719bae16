package dynamolog

import (
	"bytes"
	"github.com/dsight/dsight/internal/model"
	"io"
)

// Options bound what a scan reads.
type Options struct {
	// MaxLineBytes is the longest line accepted; 0 means
	// DefaultMaxLineBytes.
	MaxLineBytes int
}

// FrontendLog is what one frontend log contributed.
type FrontendLog struct {
	Path  string
	Lines int64
	Bytes int64
	// Candidates counts lines containing "x_request_id"; only they are
	// decoded.
	Candidates int64
	// Undecodable counts candidate lines that start with '{' but are not a
	// JSON object (or whose quoted text value is not a JSON string).
	Undecodable int64
	// FirstUndecodable is the line of the first of them (0 when none), so
	// the build's warning names where to look.
	FirstUndecodable int64
	// BadTimes counts bridges whose timestamp breaks the plausibility rule
	// (see MinYear); FirstBadTime is the first one's line.
	BadTimes, FirstBadTime int64
	// Unbridged counts candidate lines without a non-empty client id and a
	// UUID server id. Lines that do not mention a server key at all are
	// counted here without being decoded.
	Unbridged int64
	Bridges   []model.Bridge
}

var clientMarker = []byte(keyNames[keyClient])

// ScanFrontend reads a frontend log with default options.
func ScanFrontend(r io.Reader, path string) (*FrontendLog, error) {
	return Options{}.ScanFrontend(r, path)
}

// ScanFrontend reads the client → Dynamo UUID bridges of a frontend log,
// in line order, and flags ambiguity within the file.
func (o Options) ScanFrontend(r io.Reader, path string) (*FrontendLog, error) {
	log := &FrontendLog{Path: path}
	index := map[[2]string]int{}
	var fields fieldReader
	var err error
	log.Lines, log.Bytes, err = eachLine(r, path, o.MaxLineBytes, func(line []byte, n int64) error {
		if !bytes.Contains(line, clientMarker) {
			return nil
		}
		log.Candidates++
		if !mayNameServer(line) {
			log.Unbridged++
			return nil
		}
		f, ok := fields.readFields(line)
		if !ok {
			if log.Undecodable++; log.FirstUndecodable == 0 {
				log.FirstUndecodable = n
			}
			return nil
		}
		b, ok := bridgeFrom(&f)
		if !ok {
			log.Unbridged++
			return nil
		}
		key := [2]string{b.ClientID, b.ServerID}
		if i, seen := index[key]; seen {
			log.Bridges[i].Repeats++
			return nil
		}
		b.Ref = model.LineRef{Path: path, Line: n}
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
		index[key] = len(log.Bridges)
		log.Bridges = append(log.Bridges, b)
		return nil
	})
	MarkAmbiguity(log.Bridges)
	return log, err
}

var (
	dynamoRequestMarker = []byte(keyNames[keyDynamoRequest])
	requestIDMarker     = []byte(keyNames[keyRequestID])
)

// mayNameServer reports whether a line mentions dynamo.request.id, or
// request_id other than inside x_request_id: only then can it bridge.
func mayNameServer(line []byte) bool {
	return bytes.Contains(line, dynamoRequestMarker) ||
		bytes.Count(line, requestIDMarker) > bytes.Count(line, clientMarker)
}

// bridgeFrom reads a bridge from decoded fields: a non-empty string client
// id and a UUID from dynamo.request.id, or from request_id when
// dynamo.request.id is absent or empty.
func bridgeFrom(f *lineFields) (model.Bridge, bool) {
	client, ok := f.str(keyClient)
	if !ok {
		return model.Bridge{}, false
	}
	key := keyDynamoRequest
	if !f.truthy(keyDynamoRequest) {
		key = keyRequestID
	}
	server, ok := f.str(key)
	if !ok || !isUUID(server) {
		return model.Bridge{}, false
	}
	b := model.Bridge{ClientID: client, ServerID: server, ServerKey: keyNames[key], Encoding: f.encoding}
	for _, other := range f.v[key].others {
		if other != server {
			b.AlsoOnLine = append(b.AlsoOnLine, other)
		}
	}
	return b, true
}

// MarkAmbiguity sets ClientAmbiguous and ServerConflict across bridges,
// which may come from several frontend logs. It recomputes both flags.
func MarkAmbiguity(bridges []model.Bridge) {
	serverOf := make(map[string]string, len(bridges)) // client → first UUID
	clientOf := make(map[string]string, len(bridges)) // UUID → first client
	manyServers := map[string]bool{}
	manyClients := map[string]bool{}
	for _, b := range bridges {
		if s, ok := serverOf[b.ClientID]; !ok {
			serverOf[b.ClientID] = b.ServerID
		} else if s != b.ServerID {
			manyServers[b.ClientID] = true
		}
		if c, ok := clientOf[b.ServerID]; !ok {
			clientOf[b.ServerID] = b.ClientID
		} else if c != b.ClientID {
			manyClients[b.ServerID] = true
		}
	}
	for i := range bridges {
		b := &bridges[i]
		b.ClientAmbiguous = manyServers[b.ClientID]
		b.ServerConflict = manyClients[b.ServerID]
	}
}
