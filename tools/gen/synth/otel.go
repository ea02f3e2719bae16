package synth

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strconv"
)

// OTelCollector names the collector directory of the trace export, and
// OTelReplica the second collector written by Config.OTelDuplicate.
const (
	OTelCollector = "dynamo-collector"
	OTelReplica   = "dynamo-collector-replica"
)

// OTelPath is where a collector's export goes, relative to the run
// directory: the otel/*/traces.jsonl discovery pattern under logs/.
func OTelPath(collector string) string {
	return path.Join("logs", "otel", collector, "traces.jsonl")
}

// otelBatch is how many client requests one exported record covers: the
// collector's batch processor flushes spans from every process together.
const otelBatch = 25

// otelWriter renders Dynamo's lifecycle spans as an OpenTelemetry Collector
// file export: one ExportTraceServiceRequest per line, with one
// resourceSpans entry per process that ended spans in the batch.
type otelWriter struct {
	sv      *serving
	tl      *timeliner
	buckets [][]byte // per resource: frontends, then workers
	att     []attempt
	spans   int64
	idHex   [32]byte
}

// writeOTel writes the trace export and returns its line and span counts.
func writeOTel(w io.Writer, sv *serving) (lines, spans int64, err error) {
	o := &otelWriter{sv: sv, tl: newTimeliner(sv)}
	o.buckets = make([][]byte, len(sv.d.frontends)+len(sv.d.workers))
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	reqs := sv.p.Requests
	for from := 0; from < len(reqs); from += otelBatch {
		for i := from; i < min(len(reqs), from+otelBatch); i++ {
			if sv.reqs[i].traced {
				o.request(i)
			}
		}
		line = o.record(line[:0])
		if line == nil {
			continue
		}
		if _, err := bw.Write(line); err != nil {
			return lines, o.spans, fmt.Errorf("write trace record %d: %w", lines+1, err)
		}
		lines++
	}
	if err := bw.Flush(); err != nil {
		return lines, o.spans, fmt.Errorf("flush trace export: %w", err)
	}
	return lines, o.spans, nil
}

// record assembles the buffered spans into one export line, or returns nil
// when the batch recorded none.
func (o *otelWriter) record(b []byte) []byte {
	empty := true
	for _, sp := range o.buckets {
		empty = empty && len(sp) == 0
	}
	if empty {
		return nil
	}
	b = append(b, `{"resourceSpans":[`...)
	d := o.sv.d
	first := true
	for k, sp := range o.buckets {
		if len(sp) == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"resource":{"attributes":[`...)
		if k < len(d.frontends) {
			fe := &d.frontends[k]
			b = appendAttrStr(b, "service.name", "dynamo-frontend")
			b = appendAttrStr(b, "host.name", fe.host)
			b = appendAttrInt(b, "process.pid", int64(fe.pid))
		} else {
			wk := &d.workers[k-len(d.frontends)]
			b = appendAttrStr(b, "service.name", wk.serviceName())
			b = appendAttrStr(b, "host.name", wk.hosts[0])
			b = appendAttrInt(b, "process.pid", int64(wk.pid))
		}
		b = closeList(b, ']')
		b = append(b, `},"scopeSpans":[{"scope":{"name":"dynamo_runtime","version":"0.7.0"},"spans":[`...)
		b = append(b, sp[:len(sp)-1]...) // spans end with a comma
		b = append(b, "]}]}"...)
		o.buckets[k] = sp[:0]
	}
	return append(b, "]}\n"...)
}

var roleNames = [2]string{"prefill", "decode"}
var routePhase = [2]string{"Prefill", "Decode"}

// request buffers the spans of every attempt of request i.
func (o *otelWriter) request(i int) {
	sv := o.sv
	s := &sv.reqs[i]
	r := &sv.p.Requests[i]
	o.att = o.tl.attempts(i, o.att[:0])
	fe := &sv.d.frontends[s.frontend]
	for ai := range o.att {
		a := &o.att[ai]
		if !a.received() {
			continue
		}
		fb := &o.buckets[s.frontend]
		failed := a.outcome != "success"

		b := o.head(*fb, a, spanHTTP, -1, "http-request", 2, a.http)
		b = appendAttrStr(b, "method", "POST")
		b = appendAttrStr(b, "uri", "/v1/chat/completions")
		b = appendAttrStr(b, "version", "HTTP/1.1")
		b = appendAttrStr(b, "x_request_id", sv.clients[i])
		b = o.tail(b, failed, a.cutMsg)

		b = o.head(b, a, spanLifecycle, spanHTTP, "request.lifecycle", 1, a.life)
		b = appendCommon(b, a.uuid, a.ops[0], "frontend", "frontend", fe.host, fe.epoch)
		b = appendAttrStr(b, "dynamo.session.id", sv.p.Agents[sv.p.Agents[r.Agent].Root].CorrelationID)
		b = appendAttrStr(b, "dynamo.session.source", "header")
		b = appendAttrStr(b, "dynamo.request.terminal.outcome", a.outcome)
		if failed {
			b = appendAttrStr(b, "dynamo.request.terminal.error", a.cutMsg)
		}
		b = appendAttrInt(b, "dynamo.request.terminal.timestamp_unix_ns", a.life.end)
		b = o.tail(b, failed, a.cutMsg)

		b = o.clipped(b, a, spanPrep, spanLifecycle, "request.preprocessing", 1, a.prep, func(b []byte) []byte {
			return appendCommon(b, a.uuid, a.ops[0], "frontend", "frontend", fe.host, fe.epoch)
		})
		for role := range 2 {
			if !a.reached(role) {
				continue
			}
			st := &a.stages[role]
			widx, dp := int(s.prefill), int64(s.pdp)
			if role == roleDecode {
				widx, dp = int(s.decode), int64(s.ddp)
			}
			wk := &sv.d.workers[widx]
			base := spanRole + role*roleSpans
			router := func(b []byte) []byte {
				return appendCommon(b, a.uuid, a.ops[0], "frontend", "router", fe.host, fe.epoch)
			}
			b = o.clipped(b, a, base, spanLifecycle, "kv_router.select_worker", 1, st.sel, router)
			b = o.clipped(b, a, base+1, base, "kv_router.compute_block_hashes", 1, st.hashes, func(b []byte) []byte {
				return appendAttrStr(b, "request_id", a.uuid)
			})
			overlap := int64(r.CachedTokens / cacheBlock)
			b = o.clipped(b, a, base+2, base, "kv_router.find_matches", 1, st.match, func(b []byte) []byte {
				b = appendAttrStr(b, "request_id", a.uuid)
				return appendAttrInt(b, "overlap_blocks", overlap)
			})
			b = o.clipped(b, a, base+3, spanLifecycle, "kv_router.route_request", 3, st.route, func(b []byte) []byte {
				b = router(b)
				b = appendAttrStr(b, "phase", routePhase[role])
				b = appendAttrInt(b, "worker_id", int64(wk.instanceID))
				b = appendAttrInt(b, "dp_rank", dp)
				b = appendAttrStr(b, "request_id", a.uuid)
				b = appendAttrInt(b, "request.attempt", 1)
				b = appendAttrBool(b, "migration.is_retry", false)
				return appendAttrInt(b, "overlap_blocks", overlap)
			})
			*fb = b

			wb := &o.buckets[len(sv.d.frontends)+widx]
			worker := func(b []byte) []byte {
				return appendCommon(b, a.uuid, a.ops[1+role], roleNames[role], "worker", wk.hosts[0], wk.epoch)
			}
			sk := func(iv interval) interval { return interval{iv.start + st.skew, iv.end + st.skew} }
			c := o.clipped(*wb, a, base+4, base+3, "worker.admission", 2, sk(st.admit), func(b []byte) []byte {
				b = worker(b)
				b = appendAttrInt(b, "dynamo.request.attempt", 1)
				b = appendAttrStr(b, "dynamo.worker.admission.transport", "tcp")
				b = appendAttrInt(b, "dynamo.worker.admission.payload.bytes", int64(1200+4*r.InputTokens/10))
				return appendAttrStr(b, "dynamo.worker.admission.result", "accepted")
			})
			c = o.clipped(c, a, base+5, base+3, "worker.operation."+roleNames[role], 1, sk(st.op), worker)
			c = o.clipped(c, a, base+6, base+5, "request.dispatch", 1, sk(st.dispatch), func(b []byte) []byte {
				b = worker(b)
				b = appendAttrInt(b, "dynamo.dispatch.destination.worker.id", int64(wk.instanceID))
				b = appendAttrInt(b, "dynamo.dispatch.destination.dp.rank", dp)
				b = appendAttrStr(b, "dynamo.dispatch.route", "direct")
				return appendAttrStr(b, "dynamo.dispatch.result", "ok")
			})
			*wb = o.clipped(c, a, base+7, base+5, "response.streaming."+roleNames[role], 1, sk(st.pump), func(b []byte) []byte {
				b = worker(b)
				b = appendAttrStr(b, "dynamo.stage.outcome", a.outcome)
				return appendAttrInt(b, "dynamo.stream.events", int64(r.Chunks))
			})
			b = *fb
		}
		*fb = o.clipped(b, a, spanStream, spanLifecycle, "response.streaming", 1, a.stream, func(b []byte) []byte {
			b = appendCommon(b, a.uuid, a.ops[0], "frontend", "frontend", fe.host, fe.epoch)
			b = appendAttrStr(b, "dynamo.stage.outcome", a.outcome)
			return appendAttrInt(b, "dynamo.stream.events", int64(r.Chunks))
		})
	}
}

// clipped appends one span as an attempt cut short records it (see
// attempt.clip), with the attributes attrs appends.
func (o *otelWriter) clipped(b []byte, a *attempt, slot, parent int, name string, kind int, iv interval, attrs func([]byte) []byte) []byte {
	iv, keep, errored := a.clip(iv)
	if !keep {
		return b
	}
	b = o.head(b, a, slot, parent, name, kind, iv)
	return o.tail(attrs(b), errored, a.cutMsg)
}

// head appends a span up to its attribute list; parent -1 is a root.
func (o *otelWriter) head(b []byte, a *attempt, slot, parent int, name string, kind int, iv interval) []byte {
	o.spans++
	b = append(b, `{"traceId":"`...)
	putHex(o.idHex[:16], a.trace[0], 16)
	putHex(o.idHex[16:], a.trace[1], 16)
	b = append(b, o.idHex[:]...)
	b = append(b, `","spanId":"`...)
	putHex(o.idHex[:16], a.ids[slot], 16)
	b = append(b, o.idHex[:16]...)
	b = append(b, `","parentSpanId":"`...)
	if parent >= 0 {
		putHex(o.idHex[:16], a.ids[parent], 16)
		b = append(b, o.idHex[:16]...)
	}
	b = append(b, `","name":"`...)
	b = append(b, name...)
	b = append(b, `","kind":`...)
	b = strconv.AppendInt(b, int64(kind), 10)
	b = append(b, `,"startTimeUnixNano":"`...)
	b = strconv.AppendInt(b, iv.start, 10)
	b = append(b, `","endTimeUnixNano":"`...)
	b = strconv.AppendInt(b, iv.end, 10)
	return append(b, `","attributes":[`...)
}

// tail closes the attribute list and the span, with an error status when
// the span was cut short.
func (o *otelWriter) tail(b []byte, errored bool, msg string) []byte {
	b = closeList(b, ']')
	if !errored {
		return append(b, `,"status":{}},`...)
	}
	b = append(b, `,"status":{"message":`...)
	b = appendString(b, msg)
	return append(b, `,"code":2}},`...)
}

// appendCommon appends the attributes every lifecycle span carries.
func appendCommon(b []byte, request, operation, role, component, host, epoch string) []byte {
	b = appendAttrStr(b, "dynamo.request.id", request)
	b = appendAttrStr(b, "dynamo.operation.id", operation)
	b = appendAttrStr(b, "dynamo.operation.role", role)
	b = appendAttrStr(b, "dynamo.lifecycle.schema", "v1")
	b = appendAttrStr(b, "dynamo.lifecycle.profile", "generic.v1")
	b = appendAttrStr(b, "dynamo.lifecycle.mode", "core")
	b = appendAttrStr(b, "dynamo.component", component)
	b = appendAttrStr(b, "dynamo.instance.id", host)
	b = appendAttrStr(b, "dynamo.process.epoch", epoch)
	return appendAttrStr(b, "dynamo.lifecycle.identity.state", "complete")
}

func appendAttrStr(b []byte, key, v string) []byte {
	b = append(b, `{"key":"`...)
	b = append(b, key...)
	b = append(b, `","value":{"stringValue":`...)
	b = appendString(b, v)
	return append(b, "}},"...)
}

// appendAttrInt writes an int attribute; OTLP/JSON writes int64 as a
// decimal string.
func appendAttrInt(b []byte, key string, v int64) []byte {
	b = append(b, `{"key":"`...)
	b = append(b, key...)
	b = append(b, `","value":{"intValue":"`...)
	b = strconv.AppendInt(b, v, 10)
	return append(b, `"}},`...)
}

func appendAttrBool(b []byte, key string, v bool) []byte {
	b = append(b, `{"key":"`...)
	b = append(b, key...)
	b = append(b, `","value":{"boolValue":`...)
	b = strconv.AppendBool(b, v)
	return append(b, "}},"...)
}

// closeList ends a list whose items each end with a comma.
func closeList(b []byte, c byte) []byte {
	if n := len(b); n > 0 && b[n-1] == ',' {
		b[n-1] = c
		return b
	}
	return append(b, c)
}
