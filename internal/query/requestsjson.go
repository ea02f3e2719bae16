package query

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dsight/dsight/internal/catalog"
)

// The "requests" answer written by hand. A page of 1,000 requests is
// ~700 KB of JSON; building a RequestItem per row and handing the page to
// json.Marshal costs thousands of allocations and about as much time in
// reflection as the selection itself. The writer below reads the columns
// in place and appends the very bytes json.Marshal gives for
// list[RequestItem] (same field order, number formatting and string
// escaping), which requestsjson_test.go checks row by row.

// requestPage is the "requests" answer: the page's request indexes, shaped
// only when written.
type requestPage struct {
	e      *Engine
	total  int
	offset int
	limit  int
	rng    [2]float64
	rows   []int
}

// requestPage selects as requests does, keeping the indexes of the page.
func (e *Engine) requestPage(a Args) (*requestPage, error) {
	w, err := e.window(a)
	if err != nil {
		return nil, err
	}
	offset, limit := page(a)
	match, all, err := e.matcherAll(a, w)
	if err != nil {
		return nil, err
	}
	p := &requestPage{e: e, offset: offset, limit: limit, rng: w.json(), rows: make([]int, 0, min(limit, 1024))}
	take := func(i int) {
		if p.total >= offset && len(p.rows) < limit {
			p.rows = append(p.rows, i)
		}
		p.total++
	}
	// The overlap scan of eachOverlapping, inlined and split where the
	// requests start inside the window: each of those overlaps it, so
	// with no filter they are counted, not visited. Two calls per request
	// were most of a whole-run answer under wasm.
	r := e.r
	lo, in, hi := e.overlapBounds(w)
	for i := lo; i < in; i++ {
		if r.End[i] >= w.fromNS && (all || match(i)) {
			take(i)
		}
	}
	if !all {
		for i := in; i < hi; i++ {
			if match(i) {
				take(i)
			}
		}
		return p.rehome()
	}
	for i := in + max(offset-p.total, 0); i < hi && len(p.rows) < limit; i++ {
		p.rows = append(p.rows, i)
	}
	p.total += hi - in
	return p.rehome()
}

// MarshalJSON serves the surfaces that encode answers themselves (Do).
func (p *requestPage) MarshalJSON() ([]byte, error) {
	if b, ok := p.appendJSON(nil); ok {
		return b, nil
	}
	return json.Marshal(p.list())
}

func (p *requestPage) fallback() any { return p.list() }

// list is the page as RequestItems, for an answer the writer declines.
func (p *requestPage) list() list[RequestItem] {
	out := list[RequestItem]{Total: p.total, Offset: p.offset, Limit: p.limit, Range: p.rng, Items: make([]RequestItem, 0, len(p.rows))}
	for _, i := range p.rows {
		out.Items = append(out.Items, p.e.item(i))
	}
	return out
}

// appendJSON appends the page as json.Marshal writes list[RequestItem];
// ok is false when a number has no JSON form (NaN, ±Inf), where
// json.Marshal fails and so must the answer.
func (p *requestPage) appendJSON(dst []byte) ([]byte, bool) {
	ok := true
	dst = append(dst, `{"total":`...)
	dst = strconv.AppendInt(dst, int64(p.total), 10)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, int64(p.offset), 10)
	dst = append(dst, `,"limit":`...)
	dst = strconv.AppendInt(dst, int64(p.limit), 10)
	dst = append(dst, `,"range":[`...)
	dst = appendJSONFloat(dst, p.rng[0], &ok)
	dst = append(dst, ',')
	dst = appendJSONFloat(dst, p.rng[1], &ok)
	dst = append(dst, `],"items":[`...)
	for k, i := range p.rows {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = p.e.appendItem(dst, i, &ok)
	}
	dst = append(dst, "]}"...)
	return dst, ok
}

// appendItem appends request i as json.Marshal writes e.item(i).
func (e *Engine) appendItem(dst []byte, i int, ok *bool) []byte {
	r := e.r
	dst = append(dst, `{"id":`...)
	dst = appendQuoted(dst, r.ID[i])
	dst = append(dst, `,"session":`...)
	dst = appendQuoted(dst, r.SessionOf(i))
	dst = append(dst, `,"agent":`...)
	dst = appendQuoted(dst, r.AgentOf(i))
	dst = append(dst, `,"parent":`...)
	dst = appendOptString(dst, r.Parent, i)
	dst = append(dst, `,"conversation":`...)
	dst = appendOptString(dst, r.Conversation, i)
	dst = append(dst, `,"source_trace":`...)
	dst = appendOptString(dst, r.SourceTrace, i)
	dst = append(dst, `,"turn":`...)
	dst = appendOptInt(dst, r.Turn, i)
	dst = append(dst, `,"depth":`...)
	dst = strconv.AppendInt(dst, r.Depth[i], 10)
	dst = append(dst, `,"start":`...)
	dst = appendJSONFloat(dst, seconds(r.Start[i]), ok)
	dst = append(dst, `,"end":`...)
	dst = appendJSONFloat(dst, seconds(r.End[i]), ok)
	dst = append(dst, `,"first":`...)
	if valid(r.First.Valid, i) {
		dst = appendJSONFloat(dst, seconds(r.First.V[i]), ok)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"ttft_ms":`...)
	if valid(r.TTFT.Valid, i) {
		dst = appendJSONFloat(dst, r.TTFT.V[i], ok)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"input_tokens":`...)
	dst = appendOptInt(dst, r.InputTokens, i)
	dst = append(dst, `,"output_tokens":`...)
	dst = appendOptInt(dst, r.OutputTokens, i)
	dst = append(dst, `,"cached_tokens":`...)
	dst = appendOptInt(dst, r.CachedTokens, i)
	dst = append(dst, `,"status":`...)
	dst = appendQuoted(dst, r.Status[i])
	dst = append(dst, `,"error":`...)
	dst = appendOptString(dst, r.Error, i)
	dst = append(dst, `,"phase":`...)
	dst = appendOptString(dst, r.Phase, i)
	dst = append(dst, `,"client_worker":`...)
	dst = appendOptString(dst, r.Worker, i)
	dst = append(dst, `,"client_kind":`...)
	dst = appendQuoted(dst, e.c.Meta.ClientKind)
	dst = append(dst, `,"evidence":`...)
	dst = e.appendEvidence(dst, int(r.EvidenceSource[i]), r.EvidenceLine[i])
	dst = append(dst, `,"timing_quality":`...)
	dst = appendQuoted(dst, r.TimingQuality[i])
	dst = append(dst, `,"identity_evidence":`...)
	dst = e.appendOptEvidence(dst, r.IdentityEvidence, i)
	dst = append(dst, `,"cache_usage_evidence":`...)
	dst = e.appendOptEvidence(dst, r.CacheUsageEvidence, i)
	dst = append(dst, `,"phase_evidence":`...)
	dst = e.appendOptEvidence(dst, r.PhaseEvidence, i)
	dst = append(dst, `,"original_start_time":`...)
	dst = appendOptString(dst, r.OriginalStart, i)
	dst = append(dst, `,"original_end_time":`...)
	dst = appendOptString(dst, r.OriginalEnd, i)
	dst = append(dst, `,"issues":[`...)
	for k, s := range r.Issues[i] {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, s)
	}
	dst = append(dst, `],"raw_start_ns":"`...)
	dst = strconv.AppendInt(dst, e.c.Meta.OriginNS+r.Start[i], 10)
	dst = append(dst, `","raw_end_ns":"`...)
	dst = strconv.AppendInt(dst, e.c.Meta.OriginNS+r.End[i], 10)
	dst = append(dst, `","server_ids":`...)
	k := int(e.serverRow[i])
	dst = appendIDList(dst, e.c.Server.ServerIDs, k)
	dst = append(dst, `,"workers":`...)
	dst = appendIDList(dst, e.c.Server.Workers, k)
	dst = append(dst, `,"span_count":`...)
	var spans int64
	if k >= 0 {
		spans = int64(int(e.c.Server.SpanCount[k])) // as RequestItem's int holds it
	}
	dst = strconv.AppendInt(dst, spans, 10)
	return append(dst, '}')
}

func (e *Engine) appendEvidence(dst []byte, source int, line int64) []byte {
	if head, ok := e.evidenceHeads[source]; ok {
		dst = append(dst, head...)
	} else {
		dst = appendEvidenceHead(dst, source, "")
	}
	dst = strconv.AppendInt(dst, line, 10)
	return append(dst, '}')
}

// appendEvidenceHead writes an evidence reference up to its line number.
func appendEvidenceHead(dst []byte, source int, path string) []byte {
	dst = append(dst, `{"source":`...)
	dst = strconv.AppendInt(dst, int64(source), 10)
	dst = append(dst, `,"path":`...)
	dst = appendQuoted(dst, path)
	return append(dst, `,"line":`...)
}

// appendOptEvidence writes catalog.Refs.At(i) as e.optEvidence does.
func (e *Engine) appendOptEvidence(dst []byte, c catalog.Refs, i int) []byte {
	if !valid(c.Source.Valid, i) || !valid(c.Line.Valid, i) {
		return append(dst, "null"...)
	}
	return e.appendEvidence(dst, int(c.Source.V[i]), c.Line.V[i])
}

func appendOptString(dst []byte, c catalog.Strings, i int) []byte {
	if !valid(c.Valid, i) {
		return append(dst, "null"...)
	}
	return appendQuoted(dst, c.V[i])
}

func appendOptInt(dst []byte, c catalog.Ints, i int) []byte {
	if !valid(c.Valid, i) {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, c.V[i], 10)
}

// appendIDList writes the stored id list col[k] (one id a line; none when
// k < 0) as the []string serverList returns.
func appendIDList(dst []byte, col []string, k int) []byte {
	dst = append(dst, '[')
	if k >= 0 && col[k] != "" {
		rest := col[k]
		for {
			id, tail, more := strings.Cut(rest, "\n")
			dst = appendQuoted(dst, id)
			if !more {
				break
			}
			dst = append(dst, ',')
			rest = tail
		}
	}
	return append(dst, ']')
}

// appendJSONFloat writes f as encoding/json writes a float64: like the
// ES6 number-to-string conversion, 'f' between 1e-6 and 1e21, else 'e'
// with an unpadded exponent. NaN and ±Inf have no JSON form: *ok turns
// false.
func appendJSONFloat(dst []byte, f float64, ok *bool) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		*ok = false
		return append(dst, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendQuoted writes s quoted as encoding/json does by default (every
// hand-written answer uses it: the request list, span attributes):
// control characters, quote and backslash escaped, <, > and & as \u00XX
// (so an answer is safe inside HTML), U+2028 and U+2029 escaped, and each
// byte of invalid UTF-8 as \ufffd.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if jsonPlain[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonPlain[b] says the ASCII byte b is written as it is in a quoted
// string: one look-up a byte instead of six comparisons.
var jsonPlain = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// answerScratch holds the buffers hand-written answers are built in for
// a caller with no buffer of its own (nil dst): it gets exact-size bytes,
// never the repeated growth of a fresh buffer. A caller passing a buffer
// (the wasm adapter, the benchmark) has the answer written there.
var answerScratch sync.Pool

// jsonAppender is an answer that writes its own JSON (see AppendAnswer).
// appendJSON reports false when the answer has a value json.Marshal
// refuses; the caller then encodes fallback() the ordinary way, so the
// failure is the one it has always been.
type jsonAppender interface {
	appendJSON(dst []byte) ([]byte, bool)
	fallback() any
}

// appendEnvelope appends {"ok":true,"result":…} for an answer that writes
// itself; ok is false when it declines.
func appendEnvelope(dst []byte, a jsonAppender) ([]byte, bool) {
	if cap(dst) > 0 {
		// A caller reusing its buffer (the wasm adapter) has it grown
		// once, in place: no copy from the scratch buffer.
		out, ok := a.appendJSON(append(dst, `{"ok":true,"result":`...))
		if !ok {
			return dst, false
		}
		return append(out, '}'), true
	}
	scratch, _ := answerScratch.Get().(*[]byte)
	if scratch == nil {
		scratch = new([]byte)
	}
	buf, ok := a.appendJSON(append((*scratch)[:0], `{"ok":true,"result":`...))
	buf = append(buf, '}')
	if ok {
		if cap(dst)-len(dst) < len(buf) {
			grown := make([]byte, len(dst), len(dst)+len(buf))
			copy(grown, dst)
			dst = grown
		}
		dst = append(dst, buf...)
	}
	*scratch = buf
	answerScratch.Put(scratch)
	return dst, ok
}
