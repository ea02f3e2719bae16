package tokenspeed

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/dsight/dsight/internal/logmetric"
)

// GeneratorName identifies this generator in series and catalog entries.
const GeneratorName = "dynamo-tokenspeed"

// Metric names. The component is tokenspeed even when TokenSpeed runs through
// the Dynamo integration: it is the producer of the consumed log.
const (
	ActiveDecodeRequests = "log_tokenspeed_active_decode_requests"
	DecodeRequestLimit   = "log_tokenspeed_decode_request_limit"
	ActiveKVPages        = "log_tokenspeed_active_kv_pages"
	KVPoolPages          = "log_tokenspeed_kv_pool_pages"
)

var definitions = []logmetric.Definition{{
	Name:  ActiveDecodeRequests,
	Title: "Active decode batch",
	Unit:  "requests",
	Description: "Active decode requests reported by the decode batch logger (#running-req). Periodic snapshots, " +
		"not the exported tokenspeed:num_requests_running scheduler-state count and not a time-weighted average.",
	Temporal:       logmetric.TemporalSample,
	Reference:      DecodeRequestLimit,
	ReferenceLabel: "Logged batch limit",
}, {
	Name:  DecodeRequestLimit,
	Title: "Logged decode batch limit",
	Unit:  "requests",
	Description: "Scheduler config max_batch_size, scoped to the logged attention TP rank. Held from its log timestamp " +
		"until the next configuration in the same scope; a configuration without a valid positive value clears it. " +
		"Not global max_num_seqs or benchmark concurrency.",
	Temporal: logmetric.TemporalSetting,
	Roles:    logmetric.RoleDecode | logmetric.RoleAgg,
}, {
	Name:  ActiveKVPages,
	Title: "Active KV pages",
	Unit:  "pages",
	Description: "Active pages in the batch log's #pages(active/cached/total); cached (evictable) pages are not added. " +
		"Periodic snapshots; ranks are not summed.",
	Temporal:       logmetric.TemporalSample,
	Reference:      KVPoolPages,
	ReferenceLabel: "KV pool size",
}, {
	Name:  KVPoolPages,
	Title: "KV page pool size",
	Unit:  "pages",
	Description: "Usable total pages in the same #pages(active/cached/total) snapshot as the active pages; " +
		"not num_device_pages (which can include reserved pages) and not a token count.",
	Temporal: logmetric.TemporalSample,
}}

func init() {
	for i := range definitions {
		definitions[i].Component = logmetric.ComponentWorkers
		definitions[i].Group = logmetric.GroupLogDerived
	}
}

// Generator is the TokenSpeed log metric generator. The zero value is ready
// to use.
type Generator struct{}

var _ logmetric.Generator = Generator{}

// Name implements logmetric.Generator.
func (Generator) Name() string { return GeneratorName }

// Definitions returns a copy of the catalog.
func (Generator) Definitions() []logmetric.Definition { return slices.Clone(definitions) }

// Decode implements logmetric.Generator.
func (Generator) Decode(line []byte) (logmetric.Observation, bool, error) {
	stamp, rank, msg, ok := findPrefix(line)
	if !ok {
		// One rule with SGLang: a recognised batch line whose timestamp
		// cannot be read is an error naming file:line, not a silent drop.
		if bad := unreadableStamp(line); bad != "" {
			return logmetric.Observation{}, false, fmt.Errorf("%w: %q", logmetric.ErrInvalidStamp, bad)
		}
		return logmetric.Observation{}, false, nil
	}
	values := decodeMessage(msg)
	dropped := invalidFields(msg)
	if len(values) == 0 {
		return logmetric.Observation{Dropped: dropped}, false, nil
	}
	if err := stamp.Validate(); err != nil {
		return logmetric.Observation{}, false, err
	}
	return logmetric.Observation{
		Time:    stamp,
		Rank:    logmetric.Rank{Kind: logmetric.RankKindAttentionTP, Index: rank},
		Values:  values,
		Dropped: dropped,
	}, true, nil
}

// findPrefix finds the first "[stamp<ws>ATTN TP RANK n]" on the line and
// returns the message after it.
func findPrefix(line []byte) (logmetric.Stamp, int, []byte, bool) {
	stamp, _, rank, msg, ok := findPrefixText(line)
	return stamp, rank, msg, ok
}

func findPrefixText(line []byte) (logmetric.Stamp, string, int, []byte, bool) {
	for off := 0; off < len(line); {
		i := bytes.IndexByte(line[off:], '[')
		if i < 0 {
			break
		}
		at := off + i
		off = at + 1
		stamp, used, rank, n := parsePrefixText(line[at:])
		if n == 0 {
			continue
		}
		return stamp, string(line[at+1 : at+1+used]), rank, line[at+n:], true
	}
	return logmetric.Stamp{}, "", 0, nil, false
}

// Snapshot is one "Prefill batch." or "Decode batch." line: periodic
// scheduler state of one attention TP rank, not a forward iteration. Every
// counter the line did not record (or recorded unreadably) is nil.
type Snapshot struct {
	Stamp logmetric.Stamp
	// LocalTime is the timestamp text as written.
	LocalTime string
	Rank      int // attention TP rank
	Decode    bool
	// Counts: #running-req, #queue-req, #new-seq, #new-token, #cached-token
	// and #pages(active/cached/total).
	Running, Queued, NewSeq, NewToken, CachedToken *int64
	PagesActive, PagesCached, PagesTotal           *int64
	// Decimals: page ratio, gen throughput (token/s), avg_accept_len,
	// accept_rate.
	PageRatio, GenThroughput, AvgAcceptLen, AcceptRate *float64
	// Dropped says why the first field the line records was left nil
	// (NaN, negative, fractional, overflowing), or "".
	Dropped string `json:",omitempty"`
}

// DecodeSnapshot reads a batch snapshot line, with the same prefix and
// field rules the metric generator uses (one grammar, one owner). It
// returns ok=false for other lines (configuration, "Mix batch.", other
// engines) and an error only for an impossible timestamp.
func DecodeSnapshot(line []byte) (Snapshot, bool, error) {
	stamp, text, rank, msg, ok := findPrefixText(line)
	if !ok {
		return Snapshot{}, false, nil
	}
	if _, _, ok := bytes.Cut(msg, []byte("Scheduler config: ")); ok {
		return Snapshot{}, false, nil
	}
	decode, fields, ok := batchFields(msg)
	if !ok {
		return Snapshot{}, false, nil
	}
	if err := stamp.Validate(); err != nil {
		return Snapshot{}, false, err
	}
	s := Snapshot{Stamp: stamp, LocalTime: text, Rank: rank, Decode: decode, Dropped: invalidSnapshotFields(fields)}
	// One block holds the snapshot's numbers: one allocation, not one per
	// counter.
	store := new(struct {
		ints   [8]int64
		floats [4]float64
	})
	ni, nf := 0, 0
	for _, c := range [...]struct {
		label string
		dst   **int64
	}{{"#running-req:", &s.Running}, {"#queue-req:", &s.Queued}, {"#new-seq:", &s.NewSeq}, {"#new-token:", &s.NewToken}, {"#cached-token:", &s.CachedToken}} {
		if v, ok := countAfter(fields, c.label); ok {
			store.ints[ni] = int64(v)
			*c.dst = &store.ints[ni]
			ni++
		}
	}
	if a, c, t, ok := pageCounts(fields); ok {
		store.ints[5], store.ints[6], store.ints[7] = a, c, t
		s.PagesActive, s.PagesCached, s.PagesTotal = &store.ints[5], &store.ints[6], &store.ints[7]
	}
	for _, d := range [...]struct {
		label string
		dst   **float64
	}{{"page ratio:", &s.PageRatio}, {"gen throughput (token/s):", &s.GenThroughput}, {"avg_accept_len:", &s.AvgAcceptLen}, {"accept_rate:", &s.AcceptRate}} {
		if v, ok := decimalAfter(fields, d.label); ok {
			store.floats[nf] = v
			*d.dst = &store.floats[nf]
			nf++
		}
	}
	return s, true, nil
}

// decimalAfter reads the unsigned decimal after the first occurrence of
// label, ending at a field boundary.
func decimalAfter(fields []byte, label string) (float64, bool) {
	i := bytes.Index(fields, []byte(label))
	if i < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(fields[i+len(label):], " \t")
	n := 0
	for n < len(rest) && (isDigit(rest[n]) || rest[n] == '.' || rest[n] == 'e' || rest[n] == 'E' || rest[n] == '+' || rest[n] == '-') {
		n++
	}
	if n == 0 || !boundary(rest[n:]) {
		return 0, false
	}
	return logmetric.ParseDecimal(rest[:n])
}

const maxRankDigits = 9

// parsePrefixText reads "[stamp<whitespace>ATTN TP RANK n]" at the start
// of b: the stamp, its length (its text is b[1:1+stampLen]), the rank and
// the prefix length (0 when b does not start with one).
func parsePrefixText(b []byte) (stamp logmetric.Stamp, stampLen, rank, n int) {
	if len(b) == 0 || b[0] != '[' {
		return logmetric.Stamp{}, 0, 0, 0
	}
	stamp, used := logmetric.ParseStamp(b[1:], ',')
	if used == 0 {
		return logmetric.Stamp{}, 0, 0, 0
	}
	i := 1 + used
	ws := i
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	rest, ok := bytes.CutPrefix(b[i:], []byte("ATTN TP RANK "))
	if i == ws || !ok {
		return logmetric.Stamp{}, 0, 0, 0
	}
	d := 0
	for d < len(rest) && isDigit(rest[d]) {
		d++
	}
	if d == 0 || d > maxRankDigits || d == len(rest) || rest[d] != ']' {
		return logmetric.Stamp{}, 0, 0, 0
	}
	rank, _ = strconv.Atoi(string(rest[:d]))
	return stamp, used, rank, len(b) - len(rest) + d + 1
}

// decodeMessage reads the text after the prefix: a scheduler configuration
// or a prefill/decode batch snapshot.
func decodeMessage(msg []byte) []logmetric.Value {
	if _, config, ok := bytes.Cut(msg, []byte("Scheduler config: ")); ok && len(config) > 0 {
		limit := logmetric.Value{Name: DecodeRequestLimit, Null: true}
		if v, ok := maxBatchSize(config); ok && v > 0 {
			limit = logmetric.Value{Name: DecodeRequestLimit, Number: v}
		}
		return []logmetric.Value{limit}
	}
	decode, fields, ok := batchFields(msg)
	if !ok {
		return nil
	}
	var values []logmetric.Value
	if decode {
		if v, ok := countAfter(fields, "#running-req:"); ok {
			values = append(values, logmetric.Value{Name: ActiveDecodeRequests, Number: v})
		}
	}
	if active, total, ok := pages(fields); ok {
		values = append(values,
			logmetric.Value{Name: ActiveKVPages, Number: active},
			logmetric.Value{Name: KVPoolPages, Number: total})
	}
	return values
}

// batchFields finds the first "Prefill batch. " or "Decode batch. " and
// returns the (non-empty) text after it.
func batchFields(msg []byte) (decode bool, fields []byte, ok bool) {
	p := bytes.Index(msg, []byte("Prefill batch. "))
	d := bytes.Index(msg, []byte("Decode batch. "))
	switch {
	case d >= 0 && (p < 0 || d < p):
		fields = msg[d+len("Decode batch. "):]
		decode = true
	case p >= 0:
		fields = msg[p+len("Prefill batch. "):]
	default:
		return false, nil, false
	}
	return decode, fields, len(fields) > 0
}

// maxBatchSize finds a whitespace-delimited max_batch_size=<digits>.
func maxBatchSize(config []byte) (float64, bool) {
	raw, found := maxBatchSizeText(config)
	if !found {
		return 0, false
	}
	return logmetric.ParseCount(raw)
}

// maxBatchSizeText returns the text of the first whitespace-delimited
// max_batch_size= value.
func maxBatchSizeText(config []byte) ([]byte, bool) {
	const key = "max_batch_size="
	for off := 0; ; {
		i := bytes.Index(config[off:], []byte(key))
		if i < 0 {
			return nil, false
		}
		at := off + i
		off = at + 1
		if at > 0 && !isSpace(config[at-1]) {
			continue // e.g. global_max_batch_size=
		}
		digits := config[at+len(key):]
		end := 0
		for end < len(digits) && !isSpace(digits[end]) {
			end++
		}
		return digits[:end], true
	}
}

// countAfter reads the integer after the first occurrence of label, allowing
// whitespace before it. The number must end at a field boundary, so "4.5" or
// "4x" is invalid rather than read as 4.
func countAfter(fields []byte, label string) (float64, bool) {
	i := bytes.Index(fields, []byte(label))
	if i < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(fields[i+len(label):], " \t")
	n, ok := leadingCount(rest)
	if !ok || !boundary(rest[n:]) {
		return 0, false
	}
	return logmetric.ParseCount(rest[:n])
}

// pages reads the active and total pages of the snapshot.
func pages(fields []byte) (active, total float64, ok bool) {
	a, _, t, ok := pageCounts(fields)
	return float64(a), float64(t), ok
}

// pageCounts reads "#pages(active/cached/total): a/c/t" from the same
// snapshot; each count is at most 2^53.
func pageCounts(fields []byte) (active, cached, total int64, ok bool) {
	const label = "#pages(active/cached/total):"
	i := bytes.Index(fields, []byte(label))
	if i < 0 {
		return 0, 0, 0, false
	}
	rest := bytes.TrimLeft(fields[i+len(label):], " \t")
	var nums [3]int64
	for k := range nums {
		n, ok := leadingCount(rest)
		if !ok {
			return 0, 0, 0, false
		}
		v, ok := logmetric.ParseCount(rest[:n])
		if !ok {
			return 0, 0, 0, false
		}
		nums[k] = int64(v)
		rest = rest[n:]
		if k < 2 {
			if len(rest) == 0 || rest[0] != '/' {
				return 0, 0, 0, false
			}
			rest = rest[1:]
		}
	}
	if !boundary(rest) {
		return 0, 0, 0, false
	}
	return nums[0], nums[1], nums[2], true
}

func leadingCount(b []byte) (int, bool) {
	n := 0
	for n < len(b) && isDigit(b[n]) {
		n++
	}
	return n, n > 0
}

// boundary reports whether a number ended at the end of a field.
func boundary(rest []byte) bool {
	return len(rest) == 0 || rest[0] == ',' || isSpace(rest[0]) || rest[0] == '\x1b'
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n'
}
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
