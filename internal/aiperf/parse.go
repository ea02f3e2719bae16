package aiperf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/jsonscan"
	"github.com/dsight/dsight/internal/lineread"
	"github.com/dsight/dsight/internal/model"
)

// Options select what Parse reads and how it labels evidence.
type Options struct {
	File     string // path shown in errors, e.g. "logs/artifacts/x/profile_export.jsonl"
	SourceID int    // model.Ref.Source for evidence
	Phase    string // "profiling" (default when empty), another recorded phase name, or "all"
	// MaxLineBytes bounds one line; 0 means lineread.DefaultMaxBytes.
	MaxLineBytes int
}

// Result is one parsed export.
type Result struct {
	Requests      []model.Request // in file order; StartNS/EndNS/FirstNS absolute epoch ns
	Schema        string          // "current", "legacy", or "" when no rows
	Rows          int             // non-blank rows read
	Excluded      int             // rows dropped by the phase filter (explicit other phase, e.g. warmup)
	WithoutPhase  int             // rows kept with no phase recorded (unclassified)
	FirstAfterEnd int             // rows whose first-token boundary exceeds request end
	// InvalidTTFT counts rows whose recorded TTFT is NaN, infinite or
	// negative: kept with TTFT unknown, the first named in a warning.
	InvalidTTFT int
	Warnings    []string
}

// Schema names.
const (
	SchemaCurrent = "current"
	SchemaLegacy  = "legacy"
)

// TimingQuality labels every timing read from an AIPerf export.
const TimingQuality = "client export"

// PhaseAll disables the phase filter.
const PhaseAll = "all"

// Issue texts recorded on requests.
const (
	IssueFirstAfterEnd  = "TTFT endpoint exceeds request_end_ns"
	IssueEndFromLatency = "end derived from start + request_latency"
	IssueNoEnd          = "no recorded end; zero-length at timestamp_ns"
	IssueInvalidTTFT    = "recorded TTFT is not a finite non-negative number; TTFT unknown"
)

type parser struct {
	opt         Options
	phase       string
	scan        jsonscan.Scanner
	row         fields
	res         Result
	seen        map[string]int64 // request id → line, for kept rows
	shared      sharedText       // worker ids and phases, one copy each
	ids         sharedIDs        // session, agent and conversation ids, one copy each
	noEnd       int
	fromLatency int
	badTTFT     int64 // line of the first row with an invalid TTFT
}

// Parse reads one profile_export.jsonl stream. A malformed or invalid row
// is an error naming File and the 1-based physical line.
func Parse(r io.Reader, opt Options) (*Result, error) {
	p := &parser{opt: opt, phase: opt.Phase, seen: map[string]int64{}, scan: jsonscan.Scanner{Dialect: jsonscan.Python, StrictSurrogates: true}}
	if p.phase == "" {
		p.phase = "profiling"
	}
	lines := lineread.New(r, opt.MaxLineBytes)
	for lines.Next() {
		line := lines.Bytes()
		if lineread.Blank(line) {
			continue
		}
		p.res.Rows++
		if err := p.parseRow(line, lines.Line()); err != nil {
			return nil, err
		}
	}
	if err := lines.Err(); err != nil {
		return nil, &lineread.LineError{Path: opt.File, Line: lines.Line(), Err: err}
	}
	return p.finish()
}

func (p *parser) invalid(line int64, err error) error {
	return fmt.Errorf("%s:%d: invalid client record: %w", p.opt.File, line, err)
}

func (p *parser) parseRow(line []byte, n int64) error {
	f := &p.row
	if err := decodeRow(&p.scan, line, f); err != nil {
		return p.invalid(n, err)
	}
	if !f.hasMetadata {
		if f.hasStartKey {
			return p.invalid(n, errors.New("native AgentPerf row (start_time without metadata); read requests.jsonl with the AgentPerf adapter"))
		}
		return p.invalid(n, errors.New("metadata is missing"))
	}
	schema := SchemaCurrent
	if f.startNS.Lit == nil && !f.startNS.Present && f.timestampNS.Present {
		schema = SchemaLegacy
	}
	switch p.res.Schema {
	case "":
		p.res.Schema = schema
	case schema:
	default:
		return p.invalid(n, fmt.Errorf("%s-schema row in a %s-schema export; the export mixes AIPerf versions", schema, p.res.Schema))
	}
	req, err := p.request(f, n, schema)
	if err != nil {
		return p.invalid(n, err)
	}
	if req.Phase == nil {
		// Counted in every mode: "all" keeps them too, still unclassified.
		p.res.WithoutPhase++
	} else if p.phase != PhaseAll && *req.Phase != p.phase {
		p.res.Excluded++
		return nil
	}
	if first, dup := p.seen[req.ID]; dup {
		return fmt.Errorf("%s:%d: duplicate request id %q (first on line %d); attempts need distinct identities", p.opt.File, n, req.ID, first)
	}
	p.seen[req.ID] = n
	for _, issue := range req.Issues {
		switch issue {
		case IssueFirstAfterEnd:
			p.res.FirstAfterEnd++
		case IssueEndFromLatency:
			p.fromLatency++
		case IssueNoEnd:
			p.noEnd++
		case IssueInvalidTTFT:
			if p.res.InvalidTTFT++; p.badTTFT == 0 {
				p.badTTFT = n
			}
		}
	}
	p.res.Requests = append(p.res.Requests, req)
	return nil
}

func (p *parser) request(f *fields, line int64, schema string) (model.Request, error) {
	req := model.Request{
		Evidence:      model.Ref{Source: p.opt.SourceID, Line: line},
		Conversation:  p.ids.of(f.conversationID).ptr(),
		Parent:        p.ids.of(f.parentCorrelation).ptr(),
		SourceTrace:   p.ids.of(f.sourceTraceID).ptr(),
		Worker:        p.shared.ptr(f.workerID),
		TimingQuality: TimingQuality,
	}
	switch {
	case f.xRequestID.nonEmpty():
		req.ID = f.xRequestID.s
	case f.requestID.nonEmpty():
		req.ID = f.requestID.s
	default:
		req.ID = "client-line-" + strconv.FormatInt(line, 10)
	}
	switch {
	case f.rootCorrelation.nonEmpty():
		req.Session = p.ids.of(f.rootCorrelation).s
	case f.xCorrelationID.nonEmpty():
		req.Session = p.ids.of(f.xCorrelationID).s
	case f.sessionID.nonEmpty():
		req.Session = p.ids.of(f.sessionID).s
	default:
		req.Session = req.ID
	}
	req.Agent = req.Session
	if f.xCorrelationID.nonEmpty() && f.xCorrelationID.s != req.Session {
		req.Agent = p.ids.of(f.xCorrelationID).s // else the session's copy, not a second
	}
	if f.benchmarkPhase.ok {
		req.Phase = p.shared.ptr(f.benchmarkPhase)
	} else {
		req.Phase = p.shared.ptr(f.creditPhase)
	}
	var err error
	if req.Turn, err = optionalInt(f.turnIndex, "metadata.turn_index"); err != nil {
		return req, err
	}
	depth, err := optionalInt(f.agentDepth, "metadata.agent_depth")
	switch {
	case err != nil:
		return req, err
	case depth != nil && *depth < 0:
		return req, errors.New("metadata.agent_depth is negative")
	case depth != nil:
		req.Depth = *depth
	case f.agentDepth.Present:
		req.Issues = append(req.Issues, "agent_depth recorded as null; AIPerf's default depth 0 used")
	}
	if schema == SchemaLegacy {
		err = legacyTiming(f, &req)
	} else {
		err = currentTiming(f, &req)
	}
	if err != nil {
		return req, err
	}
	if err := firstToken(f, &req); err != nil {
		return req, err
	}
	for _, t := range []struct {
		dst  **int64
		src  number
		name string
	}{
		{&req.InputTokens, f.inputTokens, "input_sequence_length"},
		{&req.OutputTokens, f.outputTokens, "output_sequence_length"},
		{&req.CachedTokens, f.cacheReadTokens, "usage_prompt_cache_read_tokens"},
	} {
		if *t.dst, err = t.src.Count("metrics." + t.name + ".value"); err != nil {
			return req, err
		}
	}
	if req.CachedTokens != nil {
		ev := req.Evidence
		req.CacheUsageEvidence = &ev
	}
	if f.errorText != "" {
		e := f.errorText
		req.Error = &e
	}
	// AIPerf records a cancellation as was_cancelled plus an error record of
	// type RequestCancellationError; either one means the client cancelled
	// the request, which is not a server failure. The error text is kept.
	switch {
	case f.wasCancelled || strings.HasPrefix(f.errorText, cancellationError):
		req.Status = model.StatusCancelled
	case f.failed:
		req.Status = model.StatusError
	default:
		req.Status = model.StatusCompleted
	}
	return req, nil
}

// cancellationError is the error type AIPerf records for requests it cancelled.
const cancellationError = "RequestCancellationError"

func currentTiming(f *fields, req *model.Request) error {
	start, err := epochNS(f.startNS, "metadata.request_start_ns")
	if err != nil {
		return err
	}
	end, err := epochNS(f.endNS, "metadata.request_end_ns")
	if err != nil {
		return err
	}
	if end < start {
		return fmt.Errorf("request ends before it starts (request_end_ns %d < request_start_ns %d)", end, start)
	}
	req.StartNS, req.EndNS = start, end
	return nil
}

func legacyTiming(f *fields, req *model.Request) error {
	start, err := epochNS(f.timestampNS, "metadata.timestamp_ns")
	if err != nil {
		return err
	}
	req.StartNS = start
	if f.minRequest.Lit != nil {
		v, err := epochNS(f.minRequest, "metrics.min_request_timestamp.value")
		if err != nil {
			return err
		}
		if v != start {
			req.Issues = append(req.Issues, fmt.Sprintf("min_request_timestamp %d differs from timestamp_ns by %d ns", v, v-start))
		}
	}
	if f.maxResponse.Lit != nil {
		end, err := epochNS(f.maxResponse, "metrics.max_response_timestamp.value")
		if err != nil {
			return err
		}
		if end < start {
			return fmt.Errorf("request ends before it starts (max_response_timestamp %d < timestamp_ns %d)", end, start)
		}
		req.EndNS = end
		return nil
	}
	if f.latency.Lit != nil {
		ms, err := jsonscan.Float(f.latency.Lit)
		if err != nil {
			return fmt.Errorf("metrics.request_latency.value: %w", err)
		}
		if ms < 0 {
			return errors.New("metrics.request_latency.value is negative")
		}
		if !math.IsInf(ms, 0) && !math.IsNaN(ms) {
			d, _, err := jsonscan.Scaled(f.latency.Lit, 6, jsonscan.Nearest)
			if err != nil || d > math.MaxInt64-start {
				return errors.New("metrics.request_latency.value puts the end beyond the int64 ns range")
			}
			req.EndNS = start + d
			req.Issues = append(req.Issues, IssueEndFromLatency)
			return nil
		}
	}
	req.EndNS = start
	req.Issues = append(req.Issues, IssueNoEnd)
	return nil
}

// firstToken sets TTFT and the first-token boundary when the recorded TTFT
// is finite and non-negative; anything else leaves both unknown.
func firstToken(f *fields, req *model.Request) error {
	src, name := f.ttft, "metrics.time_to_first_token.value"
	if !src.Present {
		src, name = f.ttftOld, "metrics.ttft.value"
	}
	if src.Lit == nil {
		return nil
	}
	ms, err := jsonscan.Float(src.Lit)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
		req.Issues = append(req.Issues, IssueInvalidTTFT)
		return nil
	}
	req.TTFTms = &ms
	d, _, err := jsonscan.Scaled(src.Lit, 6, jsonscan.Nearest)
	if err != nil || d > math.MaxInt64-req.StartNS {
		// Finite but past the int64 ns range: certainly after the end.
		req.Issues = append(req.Issues, IssueFirstAfterEnd)
		return nil
	}
	first := req.StartNS + d
	req.FirstNS = &first
	if first > req.EndNS {
		req.Issues = append(req.Issues, IssueFirstAfterEnd)
	}
	return nil
}

func epochNS(n number, name string) (int64, error) {
	if n.Lit == nil {
		if n.Present {
			return 0, fmt.Errorf("%s is null", name)
		}
		return 0, fmt.Errorf("%s is missing", name)
	}
	v, err := jsonscan.Int(n.Lit)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", name, n.Lit, err)
	}
	if v <= 0 {
		return 0, fmt.Errorf("%s must be positive, got %d", name, v)
	}
	return v, nil
}

func optionalInt(n number, name string) (*int64, error) {
	if n.Lit == nil {
		return nil, nil
	}
	v, err := jsonscan.Int(n.Lit)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", name, n.Lit, err)
	}
	return &v, nil
}

func (p *parser) finish() (*Result, error) {
	res := &p.res
	if res.Rows > 0 && len(res.Requests) == 0 {
		return nil, fmt.Errorf("%s: no client requests for phase %q (%d rows excluded); warmup is never substituted", p.opt.File, p.phase, res.Excluded)
	}
	if res.Rows == 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s holds no client rows (it is empty or blank); no request timing comes from it", p.opt.File))
	}
	if res.WithoutPhase > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d client rows have no benchmark phase; kept as unclassified", res.WithoutPhase))
	}
	if p.fromLatency > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d legacy client rows have no max_response_timestamp; end derived from start + request_latency", p.fromLatency))
	}
	if res.InvalidTTFT > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d client rows record a TTFT that is NaN, infinite or negative; kept with TTFT unknown (first: %s:%d)", res.InvalidTTFT, p.opt.File, p.badTTFT))
	}
	if p.noEnd > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d legacy client rows record no end time; kept as zero-length at timestamp_ns", p.noEnd))
	}
	return res, nil
}
