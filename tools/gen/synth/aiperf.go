package synth

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path"
	"strconv"
)

// AIPerfPath is where WriteRun puts the AIPerf client export, relative to
// the run directory (slash-separated): the `artifacts/*/profile_export.jsonl`
// discovery pattern under logs/.
func AIPerfPath(benchmark string) string {
	return path.Join("logs", "artifacts", benchmark, "profile_export.jsonl")
}

// errorKind is a server failure as AIPerf records it: the HTTP status, its
// reason phrase, and the response body as the message.
type errorKind struct {
	code    int
	typ     string
	message string
}

var errorKinds = []errorKind{
	{500, "Internal Server Error", `{"error":{"message":"engine request failed: stream closed by worker","type":"InternalServerError","code":500}}`},
	{500, "Internal Server Error", `{"error":{"message":"prompt exceeds the model's context window","type":"InternalServerError","code":500}}`},
	{503, "Service Unavailable", `{"error":{"message":"no decode workers available","type":"ServiceUnavailable","code":503}}`},
}

// detailStream is the key of the per-request streams that shape chunk
// timings; mixing it with Request.Seq keeps each request's detail
// independent of the order requests are written in.
const detailStream = 0xc4a9_1e57_0000_0000

// WriteAIPerf renders p as an AIPerf profile_export.jsonl in the current
// (MetricRecordMetadata) schema, one record per line, and returns the number
// of bytes and lines written.
func WriteAIPerf(w io.Writer, p *Plan) (bytes int64, lines int, err error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	rw := aiperfWriter{p: p}
	rw.pcg = rand.NewPCG(0, 0)
	rw.rng = rand.New(rw.pcg)
	for i := range p.Requests {
		rw.buf = rw.line(rw.buf[:0], &p.Requests[i])
		n, err := bw.Write(rw.buf)
		bytes += int64(n)
		if err != nil {
			return bytes, lines, fmt.Errorf("write aiperf record %d: %w", i+1, err)
		}
		lines++
	}
	if err := bw.Flush(); err != nil {
		return bytes, lines, fmt.Errorf("flush aiperf export: %w", err)
	}
	return bytes, lines, nil
}

type aiperfWriter struct {
	p       *Plan
	pcg     *rand.PCG
	rng     *rand.Rand
	buf     []byte
	weights []float64
}

func (w *aiperfWriter) line(b []byte, r *Request) []byte {
	a := &w.p.Agents[r.Agent]
	b = append(b, `{"metadata":{`...)
	b = appendKey(b, "session_num")
	b = strconv.AppendInt(b, int64(a.SessionNum), 10)
	b = append(b, ',')
	b = appendKey(b, "x_request_id")
	b = appendString(b, r.ID)
	b = append(b, ',')
	b = appendKey(b, "x_correlation_id")
	b = appendString(b, a.CorrelationID)
	b = append(b, ',')
	b = appendKey(b, "conversation_id")
	b = appendString(b, a.ConversationID)
	b = append(b, ',')
	b = appendKey(b, "turn_index")
	b = strconv.AppendInt(b, int64(r.Turn), 10)
	b = append(b, ',')
	b = appendKey(b, "request_start_ns")
	b = strconv.AppendInt(b, r.StartNS, 10)
	b = append(b, ',')
	b = appendKey(b, "request_ack_ns")
	b = appendOptInt(b, r.AckNS)
	b = append(b, ',')
	b = appendKey(b, "request_end_ns")
	b = strconv.AppendInt(b, r.EndNS, 10)
	b = append(b, ',')
	b = appendKey(b, "worker_id")
	b = appendString(b, w.p.Workers[a.Worker])
	b = append(b, ',')
	b = appendKey(b, "record_processor_id")
	b = appendString(b, w.p.Processors[r.Processor])
	b = append(b, ',')
	b = appendKey(b, "benchmark_phase")
	b = appendString(b, r.Phase.String())
	b = append(b, ',')
	b = appendKey(b, "was_cancelled")
	b = strconv.AppendBool(b, r.Outcome == Cancelled)
	b = append(b, ',')
	b = appendKey(b, "cancellation_time_ns")
	b = appendOptInt(b, r.CancelNS)
	b = append(b, ',')
	b = appendKey(b, "agent_depth")
	b = strconv.AppendInt(b, int64(a.Depth), 10)
	b = append(b, ',')
	b = appendKey(b, "parent_correlation_id")
	if a.Parent >= 0 {
		b = appendString(b, w.p.Agents[a.Parent].CorrelationID)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, ',')
	b = appendKey(b, "root_correlation_id")
	b = appendString(b, w.p.Agents[a.Root].CorrelationID)
	b = append(b, `},"metrics":{`...)

	switch r.Outcome {
	case Completed:
		b = w.completedMetrics(b, r)
		b = append(b, `},"error":null}`...)
	case Cancelled:
		b = appendMetric(b, "error_isl", "tokens", r.InputTokens)
		b = append(b, `},"error":{"code":499,"type":"RequestCancellationError","message":`...)
		msg := "Request was cancelled after " + strconv.FormatFloat(float64(r.CancelNS-r.StartNS)/1e9, 'f', 3, 64) + " seconds"
		b = appendString(b, msg)
		b = append(b, "}}"...)
	case Failed:
		e := errorKinds[r.Error]
		b = appendMetric(b, "error_isl", "tokens", r.InputTokens)
		b = append(b, `},"error":{"code":`...)
		b = strconv.AppendInt(b, int64(e.code), 10)
		b = append(b, `,"type":`...)
		b = appendString(b, e.typ)
		b = append(b, `,"message":`...)
		b = appendString(b, e.message)
		b = append(b, "}}"...)
	}
	return append(b, '\n')
}

// completedMetrics writes the record metrics of a successful streamed
// request. Inter-chunk gaps are integer nanoseconds that sum exactly to
// end - start - TTFT, so the ms values agree with the ns timestamps.
func (w *aiperfWriter) completedMetrics(b []byte, r *Request) []byte {
	b = appendMetric(b, "input_sequence_length", "tokens", r.InputTokens)
	b = append(b, ',')
	b = appendKey(b, "time_to_first_token")
	b = appendMS(b, r.TTFTNS)
	b = append(b, ',')
	b = appendKey(b, "request_latency")
	b = appendMS(b, r.EndNS-r.StartNS)
	b = append(b, ',')
	b = appendMetric(b, "output_token_count", "tokens", r.OutputTokens)
	decode := r.EndNS - r.StartNS - r.TTFTNS
	if r.Chunks > 1 {
		b = append(b, ',')
		b = appendKey(b, "inter_chunk_latency")
		b = append(b, `{"value":[`...)
		b = w.appendChunkGaps(b, r, decode)
		b = append(b, `],"unit":"ms"}`...)
	}
	b = append(b, ',')
	b = appendMetric(b, "output_sequence_length", "tokens", r.OutputTokens)
	if r.OutputTokens > 1 {
		itl := msFromNS(decode) / float64(r.OutputTokens-1)
		b = append(b, ',')
		b = appendKey(b, "inter_token_latency")
		b = append(b, `{"value":`...)
		b = appendFloat(b, itl)
		b = append(b, `,"unit":"ms"}`...)
		b = append(b, ',')
		b = appendKey(b, "output_token_throughput_per_user")
		b = append(b, `{"value":`...)
		b = appendFloat(b, 1000/itl)
		b = append(b, `,"unit":"tokens/sec/user"}`...)
	}
	b = append(b, ',')
	return appendMetric(b, "usage_prompt_cache_read_tokens", "tokens", r.CachedTokens)
}

// appendChunkGaps writes Chunks-1 gaps summing to decode ns. Gaps jitter
// around their mean, and about one in sixty is a stall (another request's
// prefill joining the batch), as seen in real exports.
func (w *aiperfWriter) appendChunkGaps(b []byte, r *Request, decode int64) []byte {
	w.pcg.Seed(w.p.Config.Seed, detailStream^uint64(r.Seq))
	n := r.Chunks - 1
	w.weights = w.weights[:0]
	var total float64
	for range n {
		g := max(0.5, 1+0.12*w.rng.NormFloat64())
		if w.rng.IntN(60) == 0 {
			g *= 4 + 4*w.rng.Float64()
		}
		total += g
		w.weights = append(w.weights, total)
	}
	// Cumulative rounding keeps the integer gaps summing exactly to decode;
	// decode >= n µs (see scheduler.issue) keeps every gap positive.
	var prev int64
	for i, cum := range w.weights {
		at := int64(math.Round(float64(decode) * cum / total))
		if i == n-1 {
			at = decode
		}
		at = max(at, prev+1)
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMSFromNS(b, at-prev)
		prev = at
	}
	return b
}

func appendMetric(b []byte, tag, unit string, v int) []byte {
	b = appendKey(b, tag)
	b = append(b, `{"value":`...)
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, `,"unit":"`...)
	b = append(b, unit...)
	return append(b, `"}`...)
}

func appendMS(b []byte, ns int64) []byte {
	b = append(b, `{"value":`...)
	b = appendMSFromNS(b, ns)
	return append(b, `,"unit":"ms"}`...)
}

func appendOptInt(b []byte, v int64) []byte {
	if v == 0 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, v, 10)
}
