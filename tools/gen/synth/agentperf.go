package synth

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strconv"
)

// Native AgentPerf output (shared/spec/input-formats.md §2), the
// alternative client: an HTTP/liveness request log, a phase manifest and a
// phase-analysis file, written as Python's json.dumps writes them (", " and
// ": " separators, epoch seconds as floats).

// AgentPerfDir is where the AgentPerf files go, relative to the run
// directory: the agentperf/*/requests.jsonl discovery pattern under logs/.
func AgentPerfDir(benchmark string) string { return path.Join("logs", "agentperf", benchmark) }

// agentPerfAnalysisName is the phase-analysis file name: model, users,
// phase, duration and settling time, and trajectory.
func agentPerfAnalysisName(p *Plan) string {
	settle := float64(p.profilingStart()-p.OriginNS) / 1e9
	return fmt.Sprintf("synth-agentic-70b__%du__phase0__dur%ds__settle%ds__traj1.jsonl",
		p.Config.Concurrency, int64(float64(p.EndNS()-p.OriginNS)/1e9), int64(settle))
}

// profilingStart is the first profiling request's start, or the origin.
func (p *Plan) profilingStart() int64 {
	first := int64(0)
	for i := range p.Requests {
		if r := &p.Requests[i]; r.Phase == Profiling && (first == 0 || r.StartNS < first) {
			first = r.StartNS
		}
	}
	if first == 0 {
		return p.OriginNS
	}
	return first
}

// agentPerfIdentity gives every request the AgentPerf user and
// conversation of its session: users are the concurrency slots, each
// running its conversations in turn.
type agentPerfIdentity struct {
	session []int // per agent: the ordinal of its root session
	users   int
}

func newAgentPerfIdentity(p *Plan) agentPerfIdentity {
	id := agentPerfIdentity{session: make([]int, len(p.Agents)), users: p.Config.Concurrency}
	n := 0
	for i := range p.Agents {
		if p.Agents[i].Parent < 0 {
			id.session[i] = n
			n++
		} else {
			id.session[i] = id.session[p.Agents[i].Root]
		}
	}
	return id
}

// appendIdentity writes request_id … conversation_idx.
func (id agentPerfIdentity) appendIdentity(b []byte, p *Plan, r *Request) []byte {
	s := id.session[r.Agent]
	b = append(b, `"phase_idx": 0, "request_id": `...)
	b = appendString(b, r.ID)
	b = append(b, `, "user_id": `...)
	b = strconv.AppendInt(b, int64(s%id.users), 10)
	b = append(b, `, "conversation_id": `...)
	b = appendString(b, p.Agents[p.Agents[r.Agent].Root].ConversationID)
	b = append(b, `, "conversation_idx": `...)
	return strconv.AppendInt(b, int64(s/id.users), 10)
}

// appendSeconds writes epoch ns as the float seconds Python's time.time()
// gives, in its shortest round-trip form.
func appendSeconds(b []byte, ns int64) []byte { return appendFloat(b, float64(ns)/1e9) }

// writeAgentPerfRequests writes requests.jsonl: every request, in the
// order the client finished them.
func writeAgentPerfRequests(w io.Writer, sv *serving) (int64, error) {
	p := sv.p
	id := newAgentPerfIdentity(p)
	bw := bufio.NewWriterSize(w, 1<<20)
	var b []byte
	for i := range p.Requests {
		r := &p.Requests[i]
		b = append(b[:0], '{')
		b = id.appendIdentity(b, p, r)
		b = append(b, `, "x_request_id": `...)
		b = appendString(b, sv.clients[i])
		b = append(b, `, "start_time": `...)
		b = appendSeconds(b, r.StartNS)
		b = append(b, `, "end_time": `...)
		b = appendSeconds(b, r.EndNS)
		b = append(b, `, "success": `...)
		b = strconv.AppendBool(b, r.Outcome == Completed)
		b = append(b, `, "ttft": `...)
		b = appendTTFT(b, r)
		b = append(b, `, "server_input_tokens": `...)
		b = strconv.AppendInt(b, int64(r.InputTokens), 10)
		b = append(b, `, "server_output_tokens": `...)
		b = appendOutputTokens(b, r)
		b = append(b, `, "server_cached_tokens": `...)
		b = strconv.AppendInt(b, int64(r.CachedTokens), 10)
		b = append(b, "}\n"...)
		if _, err := bw.Write(b); err != nil {
			return int64(i), fmt.Errorf("write agentperf request %d: %w", i+1, err)
		}
	}
	return int64(len(p.Requests)), bw.Flush()
}

func appendTTFT(b []byte, r *Request) []byte {
	if r.Outcome != Completed {
		return append(b, "null"...)
	}
	return appendFloat(b, float64(r.TTFTNS)/1e9)
}

func appendOutputTokens(b []byte, r *Request) []byte {
	if r.Outcome != Completed {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(r.OutputTokens), 10)
}

// writeAgentPerfAnalysis writes the phase-end analysis records: every
// request except cancelled ones (whose streams the analysis never saw, so
// they keep liveness timing). Cached tokens are left to the request log.
func writeAgentPerfAnalysis(w io.Writer, p *Plan) (int64, error) {
	id := newAgentPerfIdentity(p)
	bw := bufio.NewWriterSize(w, 1<<20)
	var b []byte
	var n int64
	for i := range p.Requests {
		r := &p.Requests[i]
		if r.Outcome == Cancelled {
			continue
		}
		b = append(b[:0], '{')
		b = id.appendIdentity(b, p, r)
		b = append(b, `, "start_time": `...)
		b = appendSeconds(b, r.StartNS)
		b = append(b, `, "end_time": `...)
		b = appendSeconds(b, r.EndNS)
		b = append(b, `, "ttft": `...)
		b = appendTTFT(b, r)
		b = append(b, `, "success": `...)
		b = strconv.AppendBool(b, r.Outcome == Completed)
		b = append(b, `, "has_output": `...)
		b = strconv.AppendBool(b, r.Outcome == Completed)
		b = append(b, `, "num_chunks": `...)
		if r.Outcome == Completed {
			b = strconv.AppendInt(b, int64(r.Chunks), 10)
		} else {
			b = append(b, '0')
		}
		b = append(b, `, "server_input_tokens": `...)
		b = strconv.AppendInt(b, int64(r.InputTokens), 10)
		b = append(b, `, "server_output_tokens": `...)
		b = appendOutputTokens(b, r)
		b = append(b, `, "response_text": `...)
		if r.Outcome == Completed {
			b = appendString(b, fmt.Sprintf("Synthetic completion of %d tokens.", r.OutputTokens))
		} else {
			b = append(b, `""`...)
		}
		b = append(b, "}\n"...)
		if _, err := bw.Write(b); err != nil {
			return n, fmt.Errorf("write agentperf analysis %d: %w", n+1, err)
		}
		n++
	}
	return n, bw.Flush()
}

// writeAgentPerfManifest writes the one phase's window: settling ends when
// the first profiling request starts (warmup requests are settling), and
// the phase ends after the last request.
func writeAgentPerfManifest(w io.Writer, p *Plan) (int64, error) {
	b := []byte(`{"phase_idx": 0, "settling_end": `)
	b = appendSeconds(b, p.profilingStart())
	b = append(b, `, "actual_phase_end": `...)
	b = appendSeconds(b, p.EndNS()+second)
	b = append(b, "}\n"...)
	_, err := w.Write(b)
	return 1, err
}
