package agentperf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/dsight/dsight/internal/jsonscan"
	"github.com/dsight/dsight/internal/lineread"
	"github.com/dsight/dsight/internal/model"
)

// Input is one evidence file.
type Input struct {
	Path     string // path shown in errors
	SourceID int    // model.Ref.Source for evidence from this file
	Reader   io.Reader
}

// Analysis is one phase-analysis file and the phase its name records
// (see AnalysisPhase).
type Analysis struct {
	Input
	Phase int64
}

// Inputs are the files of one AgentPerf run (see Companions).
type Inputs struct {
	Requests Input      // requests.jsonl: HTTP identity and liveness timing
	Manifest *Input     // phase_manifest.jsonl; nil when absent
	Analyses []Analysis // phase-end analysis records
}

// Options select what Parse keeps.
type Options struct {
	Phase string // "profiling" (default when empty), "settling", or "all"
	// MaxLineBytes bounds one line; 0 means lineread.DefaultMaxBytes.
	MaxLineBytes int
}

// Result is one adapted run, shaped like the AIPerf parser's result.
type Result struct {
	Requests          []model.Request // request-log order; StartNS/EndNS/FirstNS absolute epoch ns
	Rows              int             // non-blank request-log rows read
	Excluded          int             // rows outside the requested phase (settling)
	WithoutPhase      int             // rows kept with no manifest window (unclassified)
	FirstAfterEnd     int             // rows whose first-token boundary exceeds request end
	LivenessOnly      int             // kept rows timed from the request log alone
	UnmatchedAnalysis int             // analysis records no request-log row joined
	// InvalidTTFT counts kept rows whose ttft is NaN, infinite or negative:
	// kept with TTFT unknown, the first named (file:line) in a warning, as
	// the AIPerf reader does.
	InvalidTTFT      int
	FirstInvalidTTFT string
	Warnings         []string
}

// Labels recorded on requests.
const (
	ClientKind         = "agentperf"
	TimingAnalysis     = "phase analysis"
	TimingLiveness     = "request log (liveness)"
	PhaseMeasured      = "profiling"
	PhaseSettling      = "settling"
	PhaseAll           = "all"
	IssueFirstAfterEnd = "TTFT endpoint exceeds request_end_ns"
	IssueInvalidTTFT   = "recorded TTFT is not a finite non-negative number; TTFT unknown"
	IssueNoOutput      = "HTTP success without output (has_output=false)"
	// WarningGrouping is always reported: AgentPerf records no agent tree.
	WarningGrouping = "AgentPerf sessions group the recorded phase, user and conversation; no agent hierarchy is inferred"
)

type window struct {
	start, end int64 // settling_end, actual_phase_end in epoch ns
	ref        model.Ref
}

type analysisEntry struct {
	rec    record
	path   string
	ref    model.Ref
	usedBy int64 // request-log line that joined it; 0 while unused
}

type adapter struct {
	opt      Options
	phase    string
	in       Inputs
	scan     jsonscan.Scanner
	windows  map[int64]window
	analysis map[string]*analysisEntry
	seen     map[string]int64
	res      Result
}

// Parse reads the manifest, then the analysis files, then the request log.
// Malformed rows, a duplicate manifest phase, an ambiguous analysis identity
// and a non-finite time are errors naming file:line.
func Parse(in Inputs, opt Options) (*Result, error) {
	a := &adapter{opt: opt, phase: opt.Phase, in: in, analysis: map[string]*analysisEntry{}, seen: map[string]int64{}, scan: jsonscan.Scanner{Dialect: jsonscan.Python}}
	if a.phase == "" {
		a.phase = PhaseMeasured
	}
	if in.Manifest != nil {
		a.windows = map[int64]window{}
		if err := a.readManifest(*in.Manifest); err != nil {
			return nil, err
		}
	}
	for _, f := range in.Analyses {
		if err := a.readAnalysis(f); err != nil {
			return nil, err
		}
	}
	if err := a.readRequests(); err != nil {
		return nil, err
	}
	return a.finish()
}

// eachRow calls fn for every non-blank line of f.
func (a *adapter) eachRow(f Input, fn func(line []byte, n int64) error) error {
	lines := lineread.New(f.Reader, a.opt.MaxLineBytes)
	for lines.Next() {
		if line := lines.Bytes(); !lineread.Blank(line) {
			if err := fn(line, lines.Line()); err != nil {
				return err
			}
		}
	}
	if err := lines.Err(); err != nil {
		return &lineread.LineError{Path: f.Path, Line: lines.Line(), Err: err}
	}
	return nil
}

func (a *adapter) readManifest(f Input) error {
	invalid := func(n int64, err error) error {
		return fmt.Errorf("%s:%d: invalid AgentPerf phase manifest record: %w", f.Path, n, err)
	}
	return a.eachRow(f, func(line []byte, n int64) error {
		var phase, settling, end number
		a.scan.Reset(line)
		err := a.scan.Object(func(key []byte) error {
			var err error
			switch string(key) {
			case "phase_idx":
				phase, err = a.scan.ReadNumber("phase_idx")
			case "settling_end":
				settling, err = a.scan.ReadNumber("settling_end")
			case "actual_phase_end":
				end, err = a.scan.ReadNumber("actual_phase_end")
			}
			return err
		})
		if err == nil {
			err = a.scan.End()
		}
		if err != nil {
			return invalid(n, err)
		}
		if phase.Lit == nil {
			return invalid(n, errors.New("phase_idx is missing"))
		}
		p, err := phaseIndex(phase)
		if err != nil {
			return invalid(n, err)
		}
		if prev, dup := a.windows[p]; dup {
			return fmt.Errorf("%s:%d: duplicate phase %d (first on line %d); select one preserved run", f.Path, n, p, prev.ref.Line)
		}
		w := window{ref: model.Ref{Source: f.SourceID, Line: n}}
		if w.start, err = seconds(settling, "settling_end"); err != nil {
			return invalid(n, err)
		}
		if w.end, err = seconds(end, "actual_phase_end"); err != nil {
			return invalid(n, err)
		}
		a.windows[p] = w
		return nil
	})
}

func (a *adapter) readAnalysis(f Analysis) error {
	return a.eachRow(f.Input, func(line []byte, n int64) error {
		e := &analysisEntry{path: f.Path, ref: model.Ref{Source: f.SourceID, Line: n}}
		if err := decodeRecord(&a.scan, line, &e.rec); err != nil {
			return fmt.Errorf("%s:%d: invalid AgentPerf phase-analysis record: %w", f.Path, n, err)
		}
		e.rec.line = n
		e.rec.own()
		key, err := identityKey(f.Phase, &e.rec)
		if err != nil {
			return fmt.Errorf("%s:%d: invalid AgentPerf phase-analysis record: %w", f.Path, n, err)
		}
		if prev, dup := a.analysis[key]; dup {
			return fmt.Errorf("%s:%d: ambiguous AgentPerf analysis identity %s (also %s:%d)",
				f.Path, n, describeIdentity(f.Phase, &e.rec), prev.path, prev.ref.Line)
		}
		a.analysis[key] = e
		return nil
	})
}

func (a *adapter) readRequests() error {
	f := a.in.Requests
	var raw record
	return a.eachRow(f, func(line []byte, n int64) error {
		a.res.Rows++
		raw = record{}
		if err := decodeRecord(&a.scan, line, &raw); err != nil {
			return a.invalid(n, err)
		}
		raw.line = n
		req, err := a.request(&raw)
		if err != nil {
			return err
		}
		if req.Phase == nil {
			a.res.WithoutPhase++
		} else if a.phase != PhaseAll && *req.Phase != a.phase {
			a.res.Excluded++
			return nil
		}
		if first, dup := a.seen[req.ID]; dup {
			return fmt.Errorf("%s:%d: duplicate request id %q (first on line %d); attempts need distinct identities", f.Path, n, req.ID, first)
		}
		a.seen[req.ID] = n
		for _, issue := range req.Issues {
			switch issue {
			case IssueFirstAfterEnd:
				a.res.FirstAfterEnd++
			case IssueInvalidTTFT:
				if a.res.InvalidTTFT++; a.res.FirstInvalidTTFT == "" {
					a.res.FirstInvalidTTFT = fmt.Sprintf("%s:%d", a.pathOf(req.Evidence.Source), req.Evidence.Line)
				}
			}
		}
		if req.TimingQuality == TimingLiveness {
			a.res.LivenessOnly++
		}
		a.res.Requests = append(a.res.Requests, req)
		return nil
	})
}

// pathOf names the input a source id stands for.
func (a *adapter) pathOf(id int) string {
	for _, an := range a.in.Analyses {
		if an.SourceID == id {
			return an.Path
		}
	}
	return a.in.Requests.Path
}

func (a *adapter) invalid(n int64, err error) error {
	return fmt.Errorf("%s:%d: invalid client record: %w", a.in.Requests.Path, n, err)
}

// request normalizes one request-log row, joined to its analysis record
// when one matches.
func (a *adapter) request(raw *record) (model.Request, error) {
	n := raw.line
	if raw.hasMetadata {
		return model.Request{}, a.invalid(n, errors.New("row has metadata: an AIPerf record, not a native AgentPerf one"))
	}
	if !raw.start.Present {
		return model.Request{}, a.invalid(n, errors.New("start_time is missing"))
	}
	phase, err := phaseIndex(raw.phase)
	if err != nil {
		return model.Request{}, a.invalid(n, err)
	}
	key, err := identityKey(phase, raw)
	if err != nil {
		return model.Request{}, a.invalid(n, err)
	}
	rawRef := model.Ref{Source: a.in.Requests.SourceID, Line: n}
	req := model.Request{Conversation: raw.conversation.ptr()}
	// Timing, outcome and tokens come from row; identity always from raw.
	row, rowRef, rowInvalid := raw, rawRef, a.invalid
	if e := a.analysis[key]; e != nil {
		if e.usedBy != 0 {
			return req, a.invalid(n, fmt.Errorf("ambiguous AgentPerf request-log identity %s: line %d already joined %s:%d",
				describeIdentity(phase, raw), e.usedBy, e.path, e.ref.Line))
		}
		e.usedBy = n
		row, rowRef = &e.rec, e.ref
		rowInvalid = func(line int64, err error) error {
			return fmt.Errorf("%s:%d: invalid AgentPerf phase-analysis record: %w", e.path, line, err)
		}
		req.TimingQuality = TimingAnalysis
		ref := rawRef
		req.IdentityEvidence = &ref
	} else {
		req.TimingQuality = TimingLiveness
	}
	req.Evidence = rowRef

	switch {
	case raw.xRequestID.recorded() && raw.xRequestID.text != "":
		req.ID = raw.xRequestID.text
	case raw.requestID.recorded() && raw.requestID.text != "":
		req.ID = raw.requestID.text
	default:
		req.ID = "client-line-" + strconv.FormatInt(n, 10)
	}
	req.Session = fmt.Sprintf("phase-%d/user-%s/conversation-%s", phase, raw.user.label(), raw.conversation.label())
	req.Agent = req.Session
	if raw.conversationIdx.kind == jsonscan.Number {
		if v, err := jsonscan.Int([]byte(raw.conversationIdx.text)); err == nil {
			req.Turn = &v
		}
	}

	if req.StartNS, err = seconds(row.start, "start_time"); err != nil {
		return req, rowInvalid(row.line, err)
	}
	if req.EndNS, err = seconds(row.end, "end_time"); err != nil {
		return req, rowInvalid(row.line, err)
	}
	if req.StartNS <= 0 {
		return req, rowInvalid(row.line, fmt.Errorf("start_time must be positive, got %s", row.start.Lit))
	}
	if req.EndNS < req.StartNS {
		return req, rowInvalid(row.line, fmt.Errorf("request ends before it starts (end_time %s < start_time %s)", row.end.Lit, row.start.Lit))
	}
	start, end := string(row.start.Lit), string(row.end.Lit)
	req.OriginalStart, req.OriginalEnd = &start, &end

	if w, ok := a.windows[phase]; ok {
		p := PhaseSettling
		if w.start <= req.StartNS && req.StartNS < w.end {
			p = PhaseMeasured
		}
		ref := w.ref
		req.Phase, req.PhaseEvidence = &p, &ref
	}

	if err := firstToken(row, &req); err != nil {
		return req, rowInvalid(row.line, err)
	}
	if req.InputTokens, err = row.inputTokens.Count("server_input_tokens"); err != nil {
		return req, rowInvalid(row.line, err)
	}
	if req.OutputTokens, err = row.outputTokens.Count("server_output_tokens"); err != nil {
		return req, rowInvalid(row.line, err)
	}
	// Some phase-end exports omit cache usage although the exactly matched
	// request-log row records it; an explicit null in the analysis stays unknown.
	cached, cacheRef, cacheLine, cacheInvalid := row.cachedTokens, rowRef, row.line, rowInvalid
	if row != raw && !row.cachedTokens.Present {
		cached, cacheRef, cacheLine, cacheInvalid = raw.cachedTokens, rawRef, n, a.invalid
	}
	if req.CachedTokens, err = cached.Count("server_cached_tokens"); err != nil {
		return req, cacheInvalid(cacheLine, err)
	}
	if req.CachedTokens != nil {
		req.CacheUsageEvidence = &cacheRef
	}

	// An HTTP-successful stream can still end without output; the analysis
	// records that as unsuccessful.
	req.Status = model.StatusCompleted
	if row.success.isFalse() || row.hasOutput.isFalse() {
		req.Status = model.StatusError
		if !row.success.isFalse() {
			req.Issues = append(req.Issues, IssueNoOutput)
		}
	}
	return req, nil
}

// seconds converts recorded epoch seconds to ns in decimal.
func seconds(n number, name string) (int64, error) {
	if n.Lit == nil {
		if n.Present {
			return 0, fmt.Errorf("%s is null", name)
		}
		return 0, fmt.Errorf("%s is missing", name)
	}
	if f, err := jsonscan.Float(n.Lit); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s %s: non-finite AgentPerf time", name, n.Lit)
	}
	v, _, err := jsonscan.Scaled(n.Lit, 9, jsonscan.Truncate)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", name, n.Lit, err)
	}
	return v, nil
}

// firstToken sets TTFT from seconds when finite and non-negative.
func firstToken(row *record, req *model.Request) error {
	if row.ttft.Lit == nil {
		return nil
	}
	ms, err := jsonscan.ScaledFloat(row.ttft.Lit, 3)
	if err != nil {
		return fmt.Errorf("ttft %s: %w", row.ttft.Lit, err)
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
		req.Issues = append(req.Issues, IssueInvalidTTFT)
		return nil
	}
	req.TTFTms = &ms
	d, _, err := jsonscan.Scaled(row.ttft.Lit, 9, jsonscan.Truncate)
	if err != nil || d > math.MaxInt64-req.StartNS {
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

func (a *adapter) finish() (*Result, error) {
	res := &a.res
	if res.Rows > 0 && len(res.Requests) == 0 {
		return nil, fmt.Errorf("%s: no client requests for phase %q (%d rows excluded); warmup is never substituted", a.in.Requests.Path, a.phase, res.Excluded)
	}
	for _, e := range a.analysis {
		if e.usedBy == 0 {
			res.UnmatchedAnalysis++
		}
	}
	if res.Rows == 0 {
		return res, nil
	}
	res.Warnings = append(res.Warnings, WarningGrouping)
	if a.windows == nil {
		res.Warnings = append(res.Warnings, "no "+ManifestName+" beside the AgentPerf export; the measured window is not inferred")
	}
	if res.WithoutPhase > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d client rows have no benchmark phase; kept as unclassified", res.WithoutPhase))
	}
	if res.LivenessOnly > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d AgentPerf requests take their timing from the liveness request log only; no phase-analysis record matched them", res.LivenessOnly))
	}
	if res.InvalidTTFT > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d client rows record a TTFT that is NaN, infinite or negative; kept with TTFT unknown (first: %s)", res.InvalidTTFT, res.FirstInvalidTTFT))
	}
	if res.UnmatchedAnalysis > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d AgentPerf phase-analysis records match no request-log row; not imported", res.UnmatchedAnalysis))
	}
	return res, nil
}
