package synth

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// record mirrors one profile_export.jsonl line. Pointers tell null from zero.
type record struct {
	Metadata struct {
		SessionNum          *int64  `json:"session_num"`
		XRequestID          *string `json:"x_request_id"`
		XCorrelationID      *string `json:"x_correlation_id"`
		ConversationID      *string `json:"conversation_id"`
		TurnIndex           *int64  `json:"turn_index"`
		RequestStartNS      *int64  `json:"request_start_ns"`
		RequestAckNS        *int64  `json:"request_ack_ns"`
		RequestEndNS        *int64  `json:"request_end_ns"`
		WorkerID            *string `json:"worker_id"`
		RecordProcessorID   *string `json:"record_processor_id"`
		BenchmarkPhase      *string `json:"benchmark_phase"`
		WasCancelled        *bool   `json:"was_cancelled"`
		CancellationTimeNS  *int64  `json:"cancellation_time_ns"`
		AgentDepth          *int64  `json:"agent_depth"`
		ParentCorrelationID *string `json:"parent_correlation_id"`
		RootCorrelationID   *string `json:"root_correlation_id"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"metrics"`
	Error *struct {
		Code    int    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r *record) num(t *testing.T, line int, tag string) float64 {
	t.Helper()
	m, ok := r.Metrics[tag]
	if !ok {
		t.Fatalf("line %d: metric %s missing", line, tag)
	}
	var v float64
	if err := json.Unmarshal(m.Value, &v); err != nil {
		t.Fatalf("line %d: metric %s: %v", line, tag, err)
	}
	return v
}

func readRecords(t *testing.T, name string) []record {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r record
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s:%d: %v", name, len(out)+1, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type span struct {
	start, end int64
	parent     string
	root       string
	depth      int64
	turns      []turn
}

type turn struct {
	index      int64
	start, end int64
}

func TestExportIsValid(t *testing.T) {
	for _, c := range []Config{
		{Seed: 1},
		{Seed: 7, Requests: 6000, Hostile: true},
		{Seed: 3, Requests: 1},
		{Seed: 3, Requests: 9, Concurrency: 1},
		{Seed: 5, Requests: 2000, Concurrency: 64},
	} {
		rc, err := c.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("seed%d-n%d-c%d", rc.Seed, rc.Requests, rc.Concurrency), func(t *testing.T) {
			dir, s := writeTestRun(t, c)
			recs := readRecords(t, filepath.Join(dir, s.Files[0].Path))
			if len(recs) != rc.Requests || s.Files[0].Lines != int64(rc.Requests) {
				t.Fatalf("got %d records (summary %d lines), want %d", len(recs), s.Files[0].Lines, rc.Requests)
			}
			checkRecords(t, recs, rc)
		})
	}
}

func checkRecords(t *testing.T, recs []record, c Config) {
	t.Helper()
	ids := map[string]bool{}
	agents := map[string]*span{}
	var order []string
	var cancelled, failed int
	seenProfiling := false
	var lastWarmupEnd, firstProfilingStart int64 = math.MinInt64, math.MaxInt64
	for i := range recs {
		r, line := &recs[i], i+1
		m := &r.Metadata
		for name, p := range map[string]any{
			"session_num": m.SessionNum, "x_request_id": m.XRequestID, "x_correlation_id": m.XCorrelationID,
			"conversation_id": m.ConversationID, "turn_index": m.TurnIndex, "request_start_ns": m.RequestStartNS,
			"request_end_ns": m.RequestEndNS, "worker_id": m.WorkerID, "record_processor_id": m.RecordProcessorID,
			"benchmark_phase": m.BenchmarkPhase, "was_cancelled": m.WasCancelled, "agent_depth": m.AgentDepth,
			"root_correlation_id": m.RootCorrelationID,
		} {
			if v := fmt.Sprint(p); v == "<nil>" {
				t.Fatalf("line %d: %s missing or null", line, name)
			}
		}
		start, end := *m.RequestStartNS, *m.RequestEndNS
		if ids[*m.XRequestID] {
			t.Errorf("line %d: duplicate x_request_id %q", line, *m.XRequestID)
		}
		ids[*m.XRequestID] = true
		if start <= 0 || end < start {
			t.Errorf("line %d: start %d, end %d", line, start, end)
		}
		if m.RequestAckNS != nil && (*m.RequestAckNS < start || *m.RequestAckNS > end) {
			t.Errorf("line %d: ack %d outside [%d, %d]", line, *m.RequestAckNS, start, end)
		}
		switch *m.BenchmarkPhase {
		case "warmup":
			if seenProfiling {
				t.Errorf("line %d: warmup row after profiling rows", line)
			}
			lastWarmupEnd = max(lastWarmupEnd, end)
		case "profiling":
			seenProfiling = true
			firstProfilingStart = min(firstProfilingStart, start)
		default:
			t.Errorf("line %d: benchmark_phase %q", line, *m.BenchmarkPhase)
		}
		switch {
		case *m.WasCancelled:
			cancelled++
			if r.Error == nil || r.Error.Code != 499 || r.Error.Type != "RequestCancellationError" {
				t.Errorf("line %d: cancelled row with error %+v", line, r.Error)
			}
			if m.CancellationTimeNS == nil || *m.CancellationTimeNS != end {
				t.Errorf("line %d: cancellation_time_ns %v, want the end %d", line, m.CancellationTimeNS, end)
			}
		case r.Error != nil:
			failed++
			if r.Error.Code < 500 || r.Error.Message == "" {
				t.Errorf("line %d: error %+v", line, r.Error)
			}
		default:
			checkCompletedMetrics(t, line, r, end-start)
		}
		if !*m.WasCancelled && m.CancellationTimeNS != nil {
			t.Errorf("line %d: cancellation time on a row that was not cancelled", line)
		}

		a := agents[*m.XCorrelationID]
		if a == nil {
			a = &span{start: start, end: end, root: *m.RootCorrelationID, depth: *m.AgentDepth}
			if m.ParentCorrelationID != nil {
				a.parent = *m.ParentCorrelationID
			}
			agents[*m.XCorrelationID] = a
			order = append(order, *m.XCorrelationID)
		}
		a.start, a.end = min(a.start, start), max(a.end, end)
		a.turns = append(a.turns, turn{*m.TurnIndex, start, end})
		if a.root != *m.RootCorrelationID || a.depth != *m.AgentDepth {
			t.Errorf("line %d: agent %s changes root or depth", line, *m.XCorrelationID)
		}
	}
	if seenProfiling && lastWarmupEnd > firstProfilingStart {
		t.Errorf("warmup ends at %d, after profiling starts at %d", lastWarmupEnd, firstProfilingStart)
	}
	checkAgents(t, agents, order)
	if n := len(recs); n >= 5000 {
		// Expected 1% and 0.5%; the bounds are loose enough for any seed.
		if lo, hi := n/200, n/50; cancelled < lo || cancelled > hi {
			t.Errorf("%d cancelled of %d, want in [%d, %d]", cancelled, n, lo, hi)
		}
		if lo, hi := n/600, n/100; failed < lo || failed > hi {
			t.Errorf("%d errors of %d, want in [%d, %d]", failed, n, lo, hi)
		}
	}
	checkConcurrency(t, agents, c.Concurrency)
}

// checkCompletedMetrics checks that a successful row's metrics agree with
// each other and with its timestamps.
func checkCompletedMetrics(t *testing.T, line int, r *record, latencyNS int64) {
	t.Helper()
	ttft := r.num(t, line, "time_to_first_token")
	latency := r.num(t, line, "request_latency")
	isl := r.num(t, line, "input_sequence_length")
	osl := r.num(t, line, "output_sequence_length")
	cached := r.num(t, line, "usage_prompt_cache_read_tokens")
	if got := r.num(t, line, "output_token_count"); got != osl {
		t.Errorf("line %d: output_token_count %v != output_sequence_length %v", line, got, osl)
	}
	if math.Abs(latency-float64(latencyNS)/1e6) > 1e-6 {
		t.Errorf("line %d: request_latency %v ms but end-start is %d ns", line, latency, latencyNS)
	}
	if ttft <= 0 || ttft > latency {
		t.Errorf("line %d: ttft %v, latency %v", line, ttft, latency)
	}
	if cached < 0 || cached >= isl || osl < 1 {
		t.Errorf("line %d: isl %v, cached %v, osl %v", line, isl, cached, osl)
	}
	icl, hasICL := r.Metrics["inter_chunk_latency"]
	if osl == 1 {
		if hasICL {
			t.Errorf("line %d: single-token output with inter_chunk_latency", line)
		}
		return
	}
	if !hasICL || icl.Unit != "ms" {
		t.Fatalf("line %d: inter_chunk_latency missing or not in ms", line)
	}
	var gaps []float64
	if err := json.Unmarshal(icl.Value, &gaps); err != nil {
		t.Fatalf("line %d: inter_chunk_latency: %v", line, err)
	}
	if want := min(int(osl), maxChunks) - 1; len(gaps) != want {
		t.Errorf("line %d: %d chunk gaps for %v tokens, want %d", line, len(gaps), osl, want)
	}
	var sum float64
	for _, g := range gaps {
		if g <= 0 {
			t.Errorf("line %d: non-positive chunk gap %v", line, g)
		}
		sum += g
	}
	if math.Abs(sum-(latency-ttft)) > 1e-3 {
		t.Errorf("line %d: chunk gaps sum to %v ms, latency-ttft is %v", line, sum, latency-ttft)
	}
	itl := r.num(t, line, "inter_token_latency")
	if want := (latency - ttft) / (osl - 1); math.Abs(itl-want) > 1e-6*want {
		t.Errorf("line %d: inter_token_latency %v, want %v", line, itl, want)
	}
	if tput := r.num(t, line, "output_token_throughput_per_user"); math.Abs(tput*itl-1000) > 1e-6 {
		t.Errorf("line %d: throughput %v does not match itl %v", line, tput, itl)
	}
}

// checkAgents checks the session tree: roots and parents exist, depth grows
// by one, subagents run inside their parent's span, and an agent's turns
// are numbered 0..n-1 and never overlap.
func checkAgents(t *testing.T, agents map[string]*span, order []string) {
	t.Helper()
	for _, id := range order {
		a := agents[id]
		root := agents[a.root]
		if root == nil || root.depth != 0 || root.root != a.root {
			t.Errorf("agent %s: root %q is not a recorded main agent", id, a.root)
		}
		if a.depth == 0 {
			if a.parent != "" || a.root != id {
				t.Errorf("main agent %s: parent %q, root %q", id, a.parent, a.root)
			}
		} else {
			p := agents[a.parent]
			switch {
			case p == nil:
				t.Errorf("agent %s: parent %q not recorded", id, a.parent)
			case p.depth != a.depth-1 || p.root != a.root:
				t.Errorf("agent %s: depth %d under parent depth %d", id, a.depth, p.depth)
			case a.start <= p.start || a.end >= p.end:
				t.Errorf("agent %s [%d, %d] not inside parent %s [%d, %d]", id, a.start, a.end, a.parent, p.start, p.end)
			case !betweenTurns(p.turns, a.start, a.end):
				t.Errorf("agent %s [%d, %d] overlaps a turn of its parent %s", id, a.start, a.end, a.parent)
			}
		}
		ts := slices.Clone(a.turns)
		slices.SortFunc(ts, func(x, y turn) int { return int(x.index - y.index) })
		for k, tu := range ts {
			if tu.index != int64(k) {
				t.Errorf("agent %s: turn indexes %v are not 0..n-1", id, ts)
				break
			}
			if k > 0 && tu.start <= ts[k-1].end {
				t.Errorf("agent %s: turn %d starts before turn %d ends", id, k, k-1)
			}
		}
	}
}

// betweenTurns reports whether [start, end] lies in a gap between two
// consecutive turns: the parent waits while its subagents run.
func betweenTurns(turns []turn, start, end int64) bool {
	for _, a := range turns {
		for _, b := range turns {
			if b.index == a.index+1 && a.end < start && end < b.start {
				return true
			}
		}
	}
	return false
}

// checkConcurrency checks that profiling sessions overlap at most
// `slots` at a time and, in runs long enough to ramp up, reach close to it.
func checkConcurrency(t *testing.T, agents map[string]*span, slots int) {
	t.Helper()
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	sessions := 0
	for _, a := range agents {
		if a.depth == 0 && len(a.turns) > 1 { // warmup sessions are single-turn
			edges = append(edges, edge{a.start, 1}, edge{a.end, -1})
			sessions++
		}
	}
	// Ends sort before starts at the same instant: back-to-back is not overlap.
	slices.SortFunc(edges, func(x, y edge) int {
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.delta, y.delta))
	})
	level, peak := 0, 0
	for _, e := range edges {
		level += e.delta
		peak = max(peak, level)
	}
	if peak > slots {
		t.Errorf("%d sessions overlap, concurrency is %d", peak, slots)
	}
	if sessions >= 4*slots && peak < (slots+1)/2 {
		t.Errorf("only %d sessions overlap, concurrency is %d", peak, slots)
	}
}

func TestHostileIDs(t *testing.T) {
	dir, s := writeTestRun(t, Config{Seed: 1, Hostile: true})
	name := filepath.Join(dir, s.Files[0].Path)
	raw := mustRead(t, name)
	if !bytes.Contains(raw, []byte(HostileMarkup)) {
		t.Errorf("export does not carry %s unescaped", HostileMarkup)
	}
	var markupSession, markupRequest, quotedConversation bool
	for _, r := range readRecords(t, name) {
		m := r.Metadata
		markupSession = markupSession || strings.HasSuffix(*m.RootCorrelationID, HostileMarkup)
		markupRequest = markupRequest || strings.HasSuffix(*m.XRequestID, HostileMarkup)
		quotedConversation = quotedConversation || strings.HasSuffix(*m.ConversationID, HostileQuotes)
	}
	if !markupSession || !markupRequest || !quotedConversation {
		t.Errorf("hostile ids planted: session %v, request %v, conversation %v", markupSession, markupRequest, quotedConversation)
	}
	plain := mustRead(t, filepath.Join(writeTestRunDir(t, Config{Seed: 1}), s.Files[0].Path))
	if bytes.Contains(plain, []byte("onerror")) || bytes.Contains(plain, []byte("script")) {
		t.Error("hostile strings present without -hostile")
	}
}

func writeTestRunDir(t *testing.T, c Config) string {
	dir, _ := writeTestRun(t, c)
	return dir
}

// TestGoldenHead pins the first lines of the seed-1 export, so any change
// to the generated bytes is a deliberate one (go test -update).
func TestGoldenHead(t *testing.T) {
	p, err := NewPlan(Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, _, err := WriteAIPerf(&buf, p); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfterN(buf.Bytes(), []byte("\n"), 4)
	got := bytes.Join(lines[:3], nil)
	golden := filepath.Join("testdata", "aiperf_seed1_head.jsonl")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := mustRead(t, golden)
	if !bytes.Equal(got, want) {
		t.Errorf("first 3 lines differ from %s (run with -update if intended):\ngot:\n%s", golden, got)
	}
}
