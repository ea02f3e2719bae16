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
	"time"
)

// WorkerLogPath is where a worker log file goes, relative to the run
// directory.
func WorkerLogPath(file string) string { return path.Join("logs", file) }

// Worker log events other than periodic decode batches.
const (
	wlBinding     uint8 = iota // Dynamo runtime: the worker admitted a request
	wlPrefillStat              // SGLang ReqTimeStats, type=prefill
	wlDecodeStat               // SGLang ReqTimeStats, type=decode
	wlPrefillRun               // a prefill batch (req indexes the rank's batches)
	wlSchedConfig              // a TokenSpeed scheduler reconfiguration (Worker.limit)
)

type wlEvent struct {
	t    int64
	req  int32
	att  uint8
	kind uint8
	rank uint8
}

// Engine constants of the simulated 70B model.
const (
	kvBytesPerToken  = 163840 // 80 layers × 8 KV heads × 128 dims × K and V, FP8
	prefillCapacity  = 262144 // KV tokens per prefill rank
	decodeCapacity   = 524288 // KV tokens per decode rank
	decodeLogPeriod  = 400 * milli
	tokenspeedPages  = 65536 // usable KV pages of a TokenSpeed scheduler
	tokenspeedPage   = 64    // tokens per page
	tokenspeedMaxBat = 64    // max_batch_size
)

// workerLog renders one worker log file: the node `host` of worker w.
type workerLog struct {
	sv    *serving
	occ   *occupancy
	w     *workerProc
	widx  int
	host  int
	tl    *timeliner
	att   []attempt
	cache *attemptCache
	ts    rfc3339Micro
	local localStamp
	tsp   localStamp // TokenSpeed's asctime: comma and milliseconds
	lines int64
	prev  []int64 // per rank: time of the previous prefill batch line

	trtllm        trtllmStamps
	prevRunning   int // running requests at the previous TRT-LLM record
	trtllmSegment int // the run fifth of the previous TRT-LLM record
	trtllmRecords int // TRT-LLM records written in that fifth
	trtllmEnd     int64
}

// tickSource emits one decode batch line per logging interval while its
// rank (or, for TokenSpeed, the whole engine) has running requests.
type tickSource struct {
	rank int // -1: the whole engine; -2: TRT-LLM iteration records of rank 0
	// period is the logging interval; 0 means decodeLogPeriod.
	period int64
	next   int64
	count  int
	busy   func(t int64) bool
	after  func(t int64) (int64, bool) // next decode start after t
}

func (ts *tickSource) advance(from int64) {
	t := from
	for {
		if ts.busy(t) {
			ts.next = t
			return
		}
		s, ok := ts.after(t)
		if !ok {
			ts.next = math.MaxInt64
			return
		}
		// The first logging tick at or after the next decode start.
		p := ts.every()
		t += (s - t + p - 1) / p * p
	}
}

func (ts *tickSource) every() int64 {
	if ts.period > 0 {
		return ts.period
	}
	return decodeLogPeriod
}

// writeWorkerLog writes the log of worker widx on its host h.
func writeWorkerLog(w io.Writer, sv *serving, occ *occupancy, widx, h int, loc *time.Location) (int64, error) {
	wk := &sv.d.workers[widx]
	sep := byte(0)
	if wk.ms {
		sep = '.'
	}
	wl := &workerLog{
		sv: sv, occ: occ, w: wk, widx: widx, host: h, tl: newTimeliner(sv), cache: newAttemptCache(sv),
		ts: newRFC3339Micro(), local: newLocalStamp(loc, sep), tsp: newLocalStamp(loc, ','),
		prev: make([]int64, wk.dp), trtllm: newTRTLLMStamps(loc),
	}
	src := sv.p.Config.Sources
	sglang := wk.engine == engineSGLang && src.Has(SourceSGLang)
	tokenspeed := wk.engine == engineTokenSpeed && src.Has(SourceTokenSpeed)
	head := h == 0
	role := rolePrefill
	if wk.role == "decode" {
		role = roleDecode
	}

	var events []wlEvent
	for i := range sv.p.Requests {
		s := &sv.reqs[i]
		rank := int(s.pdp)
		if role == roleDecode {
			rank = int(s.ddp)
		}
		if (role == rolePrefill && int(s.prefill) != widx) || (role == roleDecode && int(s.decode) != widx) {
			continue
		}
		onHost := wk.hostOfRank(rank) == h
		if !(src.Has(SourceWorkers) && head) && !(sglang && onHost) {
			continue
		}
		wl.att = wl.tl.attempts(i, wl.att[:0])
		for k := range wl.att {
			a := &wl.att[k]
			add := func(t int64, kind uint8) {
				events = append(events, wlEvent{t: t, req: int32(i), att: uint8(k), kind: kind, rank: uint8(rank)})
			}
			if src.Has(SourceWorkers) && head && a.received() && a.admitted(role) {
				add(a.stages[role].admit.end, wlBinding)
			}
			if sglang && onHost && a.received() && a.finished(role) {
				if role == rolePrefill {
					add(a.stages[role].transferEnd, wlPrefillStat)
				} else {
					add(a.stages[role].forwardEnd, wlDecodeStat)
				}
			}
		}
	}
	var ticks []*tickSource
	if role == rolePrefill && (sglang || (tokenspeed && head)) {
		for rank := range wk.dp {
			if (sglang && wk.hostOfRank(rank) == h) || (tokenspeed && rank == 0) {
				for j, b := range occ.ranks[widx][rank].batches {
					events = append(events, wlEvent{t: b.t, req: int32(j), kind: wlPrefillRun, rank: uint8(rank)})
				}
			}
		}
	}
	if role == roleDecode && sglang {
		for rank := range wk.dp {
			if wk.hostOfRank(rank) == h {
				rl := &occ.ranks[widx][rank]
				ticks = append(ticks, &tickSource{rank: rank,
					busy:  func(t int64) bool { return rl.running.count(t) > 0 },
					after: rl.running.nextStart})
			}
		}
	}
	if role == roleDecode && tokenspeed && head {
		ranks := occ.ranks[widx]
		ticks = append(ticks, &tickSource{rank: -1,
			busy: func(t int64) bool {
				for k := range ranks {
					if ranks[k].running.count(t) > 0 {
						return true
					}
				}
				return false
			},
			after: func(t int64) (int64, bool) {
				next, found := int64(math.MaxInt64), false
				for k := range ranks {
					if s, ok := ranks[k].running.nextStart(t); ok {
						next, found = min(next, s), true
					}
				}
				return next, found
			}})
	}
	if src.Has(SourceTRTLLM) && !sglang && !tokenspeed && head {
		// A prefill executor iterates while requests are in forward, a
		// decode one while they are running.
		busyLoad := &occ.ranks[widx][0].running
		if role == rolePrefill {
			busyLoad = &occ.ranks[widx][0].forward
		}
		ticks = append(ticks, &tickSource{rank: tickTRTLLM, period: iterLogPeriod,
			busy:  func(t int64) bool { return busyLoad.count(t) > 0 },
			after: busyLoad.nextStart})
	}
	if role == roleDecode && tokenspeed && head && wk.limit != limitKept {
		events = append(events, wlEvent{t: reconfigureTime(sv.p, wk.limit), kind: wlSchedConfig})
	}
	slices.SortFunc(events, func(x, y wlEvent) int {
		return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.kind, y.kind), cmp.Compare(x.rank, y.rank), cmp.Compare(x.req, y.req), cmp.Compare(x.att, y.att))
	})
	// Ticks keep a per-rank phase so ranks do not log in lockstep.
	for _, tk := range ticks {
		tk.advance(sv.p.OriginNS + int64(tk.rank+1)*37*milli)
	}

	bw := bufio.NewWriterSize(w, 1<<20)
	b := wl.startup(nil, sglang, tokenspeed, head)
	for pos := 0; ; {
		var tk *tickSource
		for _, t := range ticks {
			if t.next != math.MaxInt64 && (tk == nil || t.next < tk.next) {
				tk = t
			}
		}
		switch {
		case pos < len(events) && (tk == nil || events[pos].t <= tk.next):
			b = wl.event(b, events[pos])
			pos++
		case tk != nil:
			tk.count++
			b = wl.decodeTick(b, tk)
			tk.advance(tk.next + tk.every())
		default:
			if _, err := bw.Write(b); err != nil {
				return wl.lines, err
			}
			return wl.lines, bw.Flush()
		}
		if len(b) > 64<<10 {
			if _, err := bw.Write(b); err != nil {
				return wl.lines, fmt.Errorf("write worker log line %d: %w", wl.lines, err)
			}
			b = b[:0]
		}
	}
}

// attemptsOf returns request i's attempts.
func (wl *workerLog) attemptsOf(i int32) []attempt { return wl.cache.get(int(i)) }

func (wl *workerLog) event(b []byte, ev wlEvent) []byte {
	wl.lines++
	switch ev.kind {
	case wlBinding:
		return wl.binding(b, ev)
	case wlPrefillRun:
		if wl.w.engine == engineTokenSpeed {
			return wl.tokenspeedPrefill(b, ev)
		}
		return wl.sglangPrefill(b, ev)
	case wlSchedConfig:
		limit := "None"
		if wl.w.limit == limitRaised {
			limit = strconv.Itoa(2 * tokenspeedMaxBat)
		}
		return wl.tokenspeedConfig(b, ev.t, limit)
	}
	return wl.reqTimeStats(b, ev)
}

func (wl *workerLog) decodeTick(b []byte, tk *tickSource) []byte {
	wl.lines++
	if tk.rank == tickTRTLLM {
		return wl.trtllmIteration(b, tk)
	}
	if tk.rank < 0 {
		return wl.tokenspeedDecode(b, tk)
	}
	return wl.sglangDecode(b, tk)
}

// binding renders the Dynamo runtime line that binds the request id to
// this worker process, in the worker's logging style.
func (wl *workerLog) binding(b []byte, ev wlEvent) []byte {
	a := &wl.attemptsOf(ev.req)[ev.att]
	w := wl.w
	host := w.hosts[0]
	op := a.ops[1]
	if w.role == "decode" {
		op = a.ops[2]
	}
	switch w.style {
	case styleJSON:
		b = append(b, `{"time":"`...)
		b = wl.ts.append(b, ev.t)
		b = append(b, `","level":"INFO","target":"dynamo.request_lifecycle","message":"worker.admission","dynamo.request.id":"`...)
		b = append(b, a.uuid...)
		b = append(b, `","dynamo.operation.id":"`...)
		b = append(b, op...)
		b = append(b, `","dynamo.operation.role":"`...)
		b = append(b, w.role...)
		b = append(b, `","dynamo.instance.id":`...)
		b = appendString(b, host)
		b = append(b, `,"dynamo.process.epoch":"`...)
		b = append(b, w.epoch...)
		return append(b, "\"}\n"...)
	case styleJSONNested:
		b = append(b, `{"time":"`...)
		b = wl.ts.append(b, ev.t)
		b = append(b, `","level":"INFO","target":"dynamo.request_lifecycle","fields":{"message":"worker.admission","dynamo.request.id":"`...)
		b = append(b, a.uuid...)
		b = append(b, `"},"span":{"name":"worker.admission","dynamo.operation.role":"`...)
		b = append(b, w.role...)
		b = append(b, `"},"spans":[{"name":"handle_payload","dynamo.instance.id":`...)
		b = appendString(b, host)
		b = append(b, `,"dynamo.process.epoch":"`...)
		b = append(b, w.epoch...)
		return append(b, "\"}]}\n"...)
	case styleANSI:
		b = append(b, "\x1b[2m"...)
		b = wl.ts.append(b, ev.t)
		b = append(b, "\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mdynamo.request_lifecycle\x1b[0m\x1b[2m:\x1b[0m worker.admission \x1b[3mdynamo.request.id\x1b[0m\x1b[2m=\x1b[0m"...)
		b = append(b, a.uuid...)
		b = append(b, " \x1b[3mdynamo.operation.role\x1b[0m\x1b[2m=\x1b[0m"...)
		b = append(b, w.role...)
		b = append(b, " \x1b[3mdynamo.instance.id\x1b[0m\x1b[2m=\x1b[0m"...)
		b = append(b, host...)
		b = append(b, " \x1b[3mdynamo.process.epoch\x1b[0m\x1b[2m=\x1b[0m"...)
		b = append(b, w.epoch...)
		return append(b, '\n')
	}
	b = wl.ts.append(b, ev.t)
	b = append(b, "  INFO dynamo.request_lifecycle: worker.admission dynamo.request.id="...)
	b = append(b, a.uuid...)
	b = append(b, " dynamo.operation.id="...)
	b = append(b, op...)
	b = append(b, " dynamo.operation.role="...)
	b = append(b, w.role...)
	b = append(b, " dynamo.instance.id="...)
	b = append(b, host...)
	b = append(b, " dynamo.process.epoch="...)
	b = append(b, w.epoch...)
	return append(b, '\n')
}

// startup renders the lines a worker prints before serving: the engine's
// memory setup (and TokenSpeed's scheduler configuration) and the Dynamo
// runtime's registration.
func (wl *workerLog) startup(b []byte, sglang, tokenspeed, head bool) []byte {
	w := wl.w
	t := wl.sv.p.OriginNS - 40*second - int64(wl.widx)*311*milli
	if sglang {
		capacity := prefillCapacity
		if w.role == "decode" {
			capacity = decodeCapacity
		}
		for step, msg := range []string{
			"Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=61.27 GB, mem usage=35.20 GB.",
			fmt.Sprintf("KV Cache is allocated. #tokens: %d, K size: 20.00 GB, V size: 20.00 GB", capacity),
		} {
			for rank := range w.dp {
				if w.hostOfRank(rank) != wl.host {
					continue
				}
				wl.lines++
				b = wl.sglangPrefix(b, t+int64(step)*2*second+int64(rank)*milli, rank)
				b = append(append(b, msg...), '\n')
			}
		}
	}
	if tokenspeed && head {
		wl.lines++
		b = wl.tokenspeedConfig(b, t+3*second, strconv.Itoa(tokenspeedMaxBat))
	}
	if wl.sv.p.Config.Sources.Has(SourceWorkers) && head {
		wl.lines++
		msg := fmt.Sprintf("registered endpoint generate instance_id=%d", w.instanceID)
		switch w.style {
		case styleJSON, styleJSONNested:
			b = append(b, `{"time":"`...)
			b = wl.ts.append(b, t+5*second)
			b = append(b, `","level":"INFO","target":"dynamo_runtime::component::endpoint","message":`...)
			b = appendString(b, msg)
			b = append(b, "}\n"...)
		default:
			b = wl.ts.append(b, t+5*second)
			b = append(b, "  INFO dynamo_runtime::component::endpoint: "...)
			b = append(b, msg...)
			b = append(b, '\n')
		}
	}
	return b
}

// reconfigureTime is when a TokenSpeed decode scheduler logs its second
// configuration: two fifths (raised limit) or three fifths (dropped limit)
// into the run, halfway between two decode logging ticks so that no batch
// line shares its millisecond.
func reconfigureTime(p *Plan, l limitPlan) int64 {
	frac := int64(2)
	if l == limitDropped {
		frac = 3
	}
	at := (p.EndNS() - p.OriginNS) * frac / 5
	return p.OriginNS + at/decodeLogPeriod*decodeLogPeriod + decodeLogPeriod/2
}

// tokenspeedConfig renders the scheduler configuration TokenSpeed logs when
// a scheduler starts; maxBatch is max_batch_size as Python prints it ("64",
// or "None" when unset); the global max_num_seqs follows it.
func (wl *workerLog) tokenspeedConfig(b []byte, t int64, maxBatch string) []byte {
	w := wl.w
	global := "None"
	if n, err := strconv.Atoi(maxBatch); err == nil {
		global = strconv.Itoa(n * w.dp)
	}
	return wl.tokenspeedLine(b, t, fmt.Sprintf(
		"Scheduler config: prefix_granularity=%d num_device_pages=%d max_scheduled_tokens=8192 decode_input_tokens=1 overlap_schedule_depth=1 disable_l2_cache=False max_batch_size=%s (global max_num_seqs=%s, dp_size=%d) disable_prefix_cache=False prefix_replay_tokens=0 cache_groups=1",
		tokenspeedPage, tokenspeedPages+128, maxBatch, global, w.dp), "event_loop.py:329")
}
