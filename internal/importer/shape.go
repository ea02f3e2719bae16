package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A file that yields no evidence says what it looked like, so that a
// client export dropped in the OTel directory, or collector output written
// to a worker log, is named as such rather than reported as recording
// nothing. The shape comes from the file's first bytes, captured while its
// reader reads it (every file is opened once).

// headBytes is how much of a file its shape is told from.
const headBytes = 8 << 10

// head captures the first headBytes written to it.
type head struct{ b []byte }

func (h *head) Write(p []byte) (int, error) {
	if n := headBytes - len(h.b); n > 0 {
		h.b = append(h.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

// capture returns r teed into a fresh head.
func capture(r io.Reader) (io.Reader, *head) {
	h := &head{}
	return io.TeeReader(r, h), h
}

// Shapes a file's records may have.
const (
	shapeNone     = ""
	shapeOTel     = "OTel JSON trace records (resourceSpans)"
	shapeAIPerf   = "an AIPerf profile export (records with metadata and metrics)"
	shapeAgent    = "an AgentPerf request log (records with start_time and end_time)"
	shapeDynamo   = "Dynamo JSON log records"
	shapeText     = "plain text"
	shapeJSONRest = "JSON records"
)

// shapeOf tells the shape of a file from its head: the top-level keys of
// its first non-blank line when that is a JSON object, otherwise text.
// The second result lists the keys of an unrecognised JSON record.
func shapeOf(h *head) (string, []string) {
	if h == nil {
		return shapeNone, nil
	}
	for _, line := range bytes.Split(h.b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			return shapeText, nil
		}
		keys := topKeys(line)
		has := func(k string) bool { return slices.Contains(keys, k) }
		switch {
		case has("resourceSpans"):
			return shapeOTel, nil
		case has("metadata") && has("metrics"):
			return shapeAIPerf, nil
		case has("start_time") && has("end_time"):
			return shapeAgent, nil
		case has("fields") || has("target") || has("level"):
			return shapeDynamo, nil
		case len(keys) == 0:
			return shapeText, nil
		}
		return shapeJSONRest, keys
	}
	return shapeNone, nil
}

// topKeys lists the top-level keys of the JSON object that line starts
// with, as far as it reads (the head may cut the line).
func topKeys(line []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() && len(keys) < 8 {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, ok := t.(string)
		if !ok {
			break
		}
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			break
		}
	}
	return keys
}

// foreign describes a file whose head has another shape than expected:
// "its records look like …", or "" when it looks as it should. Plain text
// is never foreign (any log may hold it), nor are JSON records of no known
// shape unless anyJSON says that a file of the kind holds only expected
// records (an OTel export does; a log may hold other JSON).
func foreign(h *head, expected string, anyJSON bool) string {
	shape, keys := shapeOf(h)
	switch {
	case shape == shapeNone || shape == shapeText || shape == expected:
		return ""
	case shape == shapeJSONRest:
		if !anyJSON {
			return ""
		}
		quoted := make([]string, len(keys))
		for i, k := range keys {
			quoted[i] = fmt.Sprintf("%q", k)
		}
		return "its records are JSON objects with keys " + strings.Join(quoted, ", ")
	case shape == shapeDynamo && !anyJSON:
		return ""
	}
	return "its records look like " + shape
}
