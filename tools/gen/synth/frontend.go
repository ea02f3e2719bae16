package synth

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strconv"
)

// FrontendPath is where frontend process i of a host logs, relative to the
// run directory.
func FrontendPath(host string, i int) string {
	return path.Join("logs", fmt.Sprintf("%s_frontend_%d.out", host, i))
}

// Frontend log events of one attempt, in the order they happen.
const (
	feCreated    uint8 = iota // JSONL only: SPAN_CREATED of http-request (client id, no Dynamo id)
	feReceived                // "request received": the client → Dynamo id bridge
	feSelPrefill              // router selected a prefill worker
	feSelDecode               // router selected a decode worker
	feCompleted               // "request completed": the bridge again, with metrics
	feClosed                  // JSONL only: SPAN_CLOSED of http-request
)

type feEvent struct {
	t    int64
	req  int32
	att  uint8
	kind uint8
}

// frontendWriter renders one frontend process's log.
type frontendWriter struct {
	sv    *serving
	fe    *frontendProc
	tl    *timeliner
	cache *attemptCache
	ts    rfc3339Micro
	att   []attempt
	hex   [32]byte
	lines int64
}

// writeFrontend writes frontend process f's log: a few startup lines, then
// per request it received the bridge lines (readable key=value text from
// process 0, DYN_LOGGING_JSONL records from process 1) and the router's
// worker selections, in time order.
func writeFrontend(w io.Writer, sv *serving, f int) (int64, error) {
	fw := &frontendWriter{sv: sv, fe: &sv.d.frontends[f], tl: newTimeliner(sv), cache: newAttemptCache(sv), ts: newRFC3339Micro()}
	var events []feEvent
	for i := range sv.p.Requests {
		if int(sv.reqs[i].frontend) != f {
			continue
		}
		fw.att = fw.tl.attempts(i, fw.att[:0])
		for k := range fw.att {
			a := &fw.att[k]
			if !a.received() {
				continue
			}
			add := func(t int64, kind uint8) {
				events = append(events, feEvent{t: t, req: int32(i), att: uint8(k), kind: kind})
			}
			if fw.fe.json {
				add(a.http.start, feCreated)
				add(a.http.end, feClosed)
			}
			add(a.recv, feReceived)
			for role, kind := range []uint8{feSelPrefill, feSelDecode} {
				if _, keep, errored := a.clip(a.stages[role].sel); keep && !errored {
					add(a.stages[role].sel.end, kind)
				}
			}
			add(a.http.end, feCompleted)
		}
	}
	slices.SortFunc(events, func(x, y feEvent) int {
		return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.req, y.req), cmp.Compare(x.att, y.att), cmp.Compare(x.kind, y.kind))
	})

	bw := bufio.NewWriterSize(w, 1<<20)
	var b []byte
	start := sv.p.OriginNS - 45*second
	for k, msg := range []string{"Initialized distributed runtime namespace=dynamo", "Starting HTTP service on: 0.0.0.0:8000", "added model model_name=\"" + Model + "\""} {
		b = fw.startup(b[:0], start+int64(k)*137*milli, msg)
		if _, err := bw.Write(b); err != nil {
			return fw.lines, err
		}
	}
	for _, ev := range events {
		fw.att = fw.cache.get(int(ev.req))
		b = fw.line(b[:0], ev)
		if _, err := bw.Write(b); err != nil {
			return fw.lines, fmt.Errorf("write frontend line %d: %w", fw.lines+1, err)
		}
	}
	return fw.lines, bw.Flush()
}

func (fw *frontendWriter) startup(b []byte, t int64, msg string) []byte {
	fw.lines++
	if fw.fe.json {
		b = append(b, `{"time":"`...)
		b = fw.ts.append(b, t)
		b = append(b, `","level":"INFO","target":"dynamo_llm::http::service::service_v2","message":`...)
		b = appendString(b, msg)
		return append(b, "}\n"...)
	}
	b = fw.ts.append(b, t)
	b = append(b, "  INFO dynamo_llm::http::service::service_v2: "...)
	b = append(b, msg...)
	return append(b, '\n')
}

// line renders one event. Only the bridge lines carry both x_request_id
// and dynamo.request.id; the span lines carry only the client id, as
// tracing-subscriber writes them.
func (fw *frontendWriter) line(b []byte, ev feEvent) []byte {
	fw.lines++
	sv := fw.sv
	i := int(ev.req)
	a := &fw.att[ev.att]
	r := &sv.p.Requests[i]
	s := &sv.reqs[i]
	client := sv.clients[i]
	switch ev.kind {
	case feSelPrefill, feSelDecode:
		role := int(ev.kind - feSelPrefill)
		wk, dp := &sv.d.workers[s.prefill], s.pdp
		if role == roleDecode {
			wk, dp = &sv.d.workers[s.decode], s.ddp
		}
		msg := fmt.Sprintf("Selected worker: worker_type=%s, worker_id=%d dp_rank=%d, logit=%.3f, cached blocks: %d, tree size: %d, total blocks: %d",
			roleNames[role], wk.instanceID, dp, -float64(r.InputTokens-r.CachedTokens)/float64(cacheBlock)/100, r.CachedTokens/cacheBlock, 4096+i%4096, 65536)
		if fw.fe.json {
			b = fw.jsonHead(b, a.stages[role].sel.end, "dynamo_llm::kv_router::scheduling::selector")
			b = append(b, `"message":`...)
			b = appendString(b, msg)
			return append(b, "}\n"...)
		}
		b = fw.ts.append(b, a.stages[role].sel.end)
		b = append(b, "  INFO dynamo_llm::kv_router::scheduling::selector: "...)
		b = append(b, msg...)
		return append(b, '\n')
	case feCreated, feClosed:
		b = fw.jsonHead(b, ev.t, "dynamo_runtime::logging")
		if ev.kind == feCreated {
			b = append(b, `"message":"SPAN_CREATED","method":"POST",`...)
		} else {
			d := (a.http.end - a.http.start) / 1000
			busy := max(1, d/50)
			b = append(b, `"message":"SPAN_CLOSED","method":"POST",`...)
			b = fw.spanIDs(b, a)
			b = append(b, `"time.busy_us":`...)
			b = strconv.AppendInt(b, busy, 10)
			b = append(b, `,"time.duration_us":`...)
			b = strconv.AppendInt(b, d, 10)
			b = append(b, `,"time.idle_us":`...)
			b = strconv.AppendInt(b, d-busy, 10)
			b = append(b, `,"uri":"/v1/chat/completions","version":"HTTP/1.1","x_request_id":`...)
			b = appendString(b, client)
			return append(b, "}\n"...)
		}
		b = fw.spanIDs(b, a)
		b = append(b, `"uri":"/v1/chat/completions","version":"HTTP/1.1","x_request_id":`...)
		b = appendString(b, client)
		return append(b, "}\n"...)
	}

	completed := ev.kind == feCompleted
	if !fw.fe.json {
		b = fw.ts.append(b, ev.t)
		if completed {
			b = append(b, "  INFO http-request: dynamo_llm::http::service::metrics: request completed dynamo.request.id="...)
			b = append(b, a.uuid...)
			b = fw.metricsText(b, a, r)
		} else {
			b = append(b, "  INFO http-request: dynamo_llm::http::service::service_v2: request received dynamo.request.id="...)
			b = append(b, a.uuid...)
		}
		b = append(b, " method=POST uri=/v1/chat/completions version=HTTP/1.1 x_request_id="...)
		b = appendString(b, client)
		return append(b, '\n')
	}
	target, msg := "dynamo_llm::http::service::service_v2", "request received"
	if completed {
		target, msg = "dynamo_llm::http::service::metrics", "request completed"
	}
	if !completed && r.Seq%3 == 0 {
		// tracing-subscriber's nested layout: the event's fields, the
		// current span and the span stack.
		b = append(b, `{"time":"`...)
		b = fw.ts.append(b, ev.t)
		b = append(b, `","level":"INFO","target":"`...)
		b = append(b, target...)
		b = append(b, `","fields":{"message":"request received","dynamo.request.id":"`...)
		b = append(b, a.uuid...)
		b = append(b, `"},"span":{"name":"http-request","x_request_id":`...)
		b = appendString(b, client)
		b = append(b, `},"spans":[{"name":"http-request","method":"POST","uri":"/v1/chat/completions","version":"HTTP/1.1","x_request_id":`...)
		b = appendString(b, client)
		return append(b, "}]}\n"...)
	}
	b = fw.jsonHead(b, ev.t, target)
	b = append(b, `"message":"`...)
	b = append(b, msg...)
	b = append(b, `","dynamo.request.id":"`...)
	b = append(b, a.uuid...)
	b = append(b, `",`...)
	if completed {
		b = fw.metricsJSON(b, a, r)
	}
	b = append(b, `"method":"POST",`...)
	b = fw.spanIDs(b, a)
	b = append(b, `"uri":"/v1/chat/completions","version":"HTTP/1.1","x_request_id":`...)
	b = appendString(b, client)
	return append(b, "}\n"...)
}

func (fw *frontendWriter) jsonHead(b []byte, t int64, target string) []byte {
	b = append(b, `{"time":"`...)
	b = fw.ts.append(b, t)
	b = append(b, `","level":"INFO","target":"`...)
	b = append(b, target...)
	return append(b, `",`...)
}

// spanIDs appends the http-request span and trace ids, the ones the OTel
// export records for the attempt.
func (fw *frontendWriter) spanIDs(b []byte, a *attempt) []byte {
	b = append(b, `"span_id":"`...)
	putHex(fw.hex[:16], a.ids[spanHTTP], 16)
	b = append(b, fw.hex[:16]...)
	b = append(b, `","span_name":"http-request","trace_id":"`...)
	putHex(fw.hex[:16], a.trace[0], 16)
	putHex(fw.hex[16:], a.trace[1], 16)
	b = append(b, fw.hex[:]...)
	return append(b, `",`...)
}

// frontendMetrics are the per-request figures of "request completed".
type frontendMetrics struct {
	status          string
	elapsedMS       int64
	ttftMS, itlMS   float64 // NaN when not recorded
	input, outputTk int
}

func (fw *frontendWriter) metrics(a *attempt, r *Request) frontendMetrics {
	m := frontendMetrics{status: "success", elapsedMS: (a.http.end - a.recv) / 1e6, ttftMS: math.NaN(), itlMS: math.NaN(), input: r.InputTokens}
	switch a.outcome {
	case "cancelled":
		m.status = "cancelled"
	case "failed":
		m.status = "error"
	}
	if a.outcome != "success" {
		return m
	}
	m.outputTk = r.OutputTokens
	m.ttftMS = float64(a.stream.start-a.recv) / 1e6
	if r.OutputTokens > 1 {
		m.itlMS = float64(a.stream.end-a.stream.start) / 1e6 / float64(r.OutputTokens-1)
	}
	return m
}

func (fw *frontendWriter) metricsText(b []byte, a *attempt, r *Request) []byte {
	m := fw.metrics(a, r)
	b = append(b, " model="+Model+" endpoint=chat_completions request_type=stream status="...)
	b = append(b, m.status...)
	b = append(b, " elapsed_ms="...)
	b = strconv.AppendInt(b, m.elapsedMS, 10)
	b = append(b, " input_tokens="...)
	b = strconv.AppendInt(b, int64(m.input), 10)
	b = append(b, " output_tokens="...)
	b = strconv.AppendInt(b, int64(m.outputTk), 10)
	if !math.IsNaN(m.ttftMS) {
		b = append(b, ` ttft_ms="`...)
		b = strconv.AppendFloat(b, m.ttftMS, 'f', 2, 64)
		b = append(b, '"')
	}
	if !math.IsNaN(m.itlMS) {
		b = append(b, ` avg_itl_ms="`...)
		b = strconv.AppendFloat(b, m.itlMS, 'f', 2, 64)
		b = append(b, '"')
	}
	return b
}

func (fw *frontendWriter) metricsJSON(b []byte, a *attempt, r *Request) []byte {
	m := fw.metrics(a, r)
	b = append(b, `"model":"`+Model+`","endpoint":"chat_completions","request_type":"stream","status":"`...)
	b = append(b, m.status...)
	b = append(b, `","elapsed_ms":`...)
	b = strconv.AppendInt(b, m.elapsedMS, 10)
	b = append(b, `,"input_tokens":`...)
	b = strconv.AppendInt(b, int64(m.input), 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(m.outputTk), 10)
	if !math.IsNaN(m.ttftMS) {
		b = append(b, `,"ttft_ms":`...)
		b = strconv.AppendFloat(b, m.ttftMS, 'f', 2, 64)
	}
	if !math.IsNaN(m.itlMS) {
		b = append(b, `,"avg_itl_ms":`...)
		b = strconv.AppendFloat(b, m.itlMS, 'f', 2, 64)
	}
	return append(b, ',')
}
