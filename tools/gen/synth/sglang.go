package synth

import (
	"strconv"
)

// SGLang scheduler lines (shared/spec/input-formats.md §6): the
// "[time ranks] " prefix, Prefill/Decode batch snapshots of a PD
// deployment, and per-request ReqTimeStats records.

// sglangPrefix appends "[2026-09-17 10:58:33.123 DP0 TP0 EP0] ": DP, TP
// and EP ranks for attention-DP engines, TP0 alone for a plain TP engine,
// milliseconds only with SGLANG_LOG_MS.
func (wl *workerLog) sglangPrefix(b []byte, t int64, rank int) []byte {
	b = append(b, '[')
	b = wl.local.append(b, t)
	if wl.w.dp > 1 {
		for _, name := range []string{" DP", " TP", " EP"} {
			b = append(b, name...)
			b = strconv.AppendInt(b, int64(rank), 10)
		}
	} else {
		b = append(b, " TP0"...)
	}
	return append(b, "] "...)
}

func appendField(b []byte, key string, v int64) []byte {
	b = append(b, key...)
	b = append(b, ": "...)
	b = strconv.AppendInt(b, v, 10)
	return append(b, ", "...)
}

func appendFieldF(b []byte, key string, v float64) []byte {
	b = append(b, key...)
	b = append(b, ": "...)
	b = strconv.AppendFloat(b, v, 'f', 2, 64)
	return append(b, ", "...)
}

// sglangPrefill renders a PD prefill batch: the requests whose forward
// started together, and the rank's queue, bootstrap and transfer counts at
// that instant.
func (wl *workerLog) sglangPrefill(b []byte, ev wlEvent) []byte {
	rank := int(ev.rank)
	rl := &wl.occ.ranks[wl.widx][rank]
	batch := rl.batches[ev.req]
	running, held := rl.forward.at(ev.t)
	queued, pending := rl.queue.at(ev.t)
	b = wl.sglangPrefix(b, ev.t, rank)
	b = append(b, "Prefill batch"...)
	if wl.w.counters {
		b = append(b, " ["...)
		b = strconv.AppendInt(b, int64(ev.req)+1, 10)
		b = append(b, ']')
	}
	b = append(b, ", "...)
	b = appendField(b, "#new-seq", int64(batch.seqs))
	b = appendField(b, "#new-token", int64(batch.newTk))
	b = appendField(b, "#cached-token", int64(batch.cached))
	b = appendFieldF(b, "token usage", min(1, (held+pending)/prefillCapacity))
	b = appendField(b, "#running-req", int64(running))
	b = appendField(b, "#queue-req", int64(queued))
	b = appendField(b, "#pending-token", int64(pending))
	b = appendField(b, "#bootstrap-req", int64(rl.bootstrap.count(ev.t)))
	b = appendField(b, "#inflight-req", int64(rl.inflight.count(ev.t)))
	b = appendField(b, "#optimistic-req", 0)
	b = append(b, "cuda graph: False, "...)
	// The logger's rate since its previous line on this rank.
	since := ev.t - wl.prev[rank]
	if wl.prev[rank] == 0 {
		since = second
	}
	wl.prev[rank] = ev.t
	b = append(b, "input throughput (token/s): "...)
	b = strconv.AppendFloat(b, float64(batch.newTk)/(float64(max(since, milli))/1e9), 'f', 2, 64)
	return append(b, '\n')
}

// sglangDecode renders one PD decode snapshot of a rank.
func (wl *workerLog) sglangDecode(b []byte, tk *tickSource) []byte {
	t := tk.next
	rl := &wl.occ.ranks[wl.widx][tk.rank]
	running, tokens := rl.running.at(t)
	_, gen := rl.gen.at(t)
	_, arriving := rl.transfer.at(t)
	b = wl.sglangPrefix(b, t, tk.rank)
	b = append(b, "Decode batch"...)
	if wl.w.counters {
		b = append(b, " ["...)
		b = strconv.AppendInt(b, int64(tk.count)*40, 10)
		b = append(b, ']')
	}
	b = append(b, ", "...)
	b = appendField(b, "#running-req", int64(running))
	b = appendField(b, "#token", int64(tokens))
	b = appendFieldF(b, "token usage", min(1, tokens/decodeCapacity))
	b = appendFieldF(b, "pre-allocated usage", min(1, arriving/decodeCapacity))
	b = appendField(b, "#prealloc-req", int64(rl.prealloc.count(t)))
	b = appendField(b, "#transfer-req", int64(rl.transfer.count(t)))
	b = appendField(b, "#retracted-req", 0)
	b = append(b, "cuda graph: True, "...)
	b = appendFieldF(b, "gen throughput (token/s)", gen)
	b = append(b, "#queue-req: "...)
	b = strconv.AppendInt(b, int64(rl.dqueue.count(t)), 10)
	return append(b, '\n')
}

// reqTimeStats renders the record SGLang logs when a request finishes on
// this worker, with its stage durations as the engine measured them.
func (wl *workerLog) reqTimeStats(b []byte, ev wlEvent) []byte {
	a := &wl.attemptsOf(ev.req)[ev.att]
	r := &wl.sv.p.Requests[ev.req]
	s := &wl.sv.reqs[ev.req]
	ms := func(b []byte, key string, from, to int64) []byte {
		b = append(b, key...)
		b = append(b, '=')
		b = strconv.AppendFloat(b, float64(to-from)/1e6, 'f', 2, 64)
		return append(b, "ms, "...)
	}
	b = wl.sglangPrefix(b, ev.t, int(ev.rank))
	b = append(b, "ReqTimeStats(rid="...)
	b = append(b, a.uuid...)
	b = append(b, ", bootstrap_room="...)
	b = strconv.AppendUint(b, s.room, 10)
	b = append(b, ", input_len="...)
	b = strconv.AppendInt(b, int64(r.InputTokens), 10)
	b = append(b, ", cached_input_len="...)
	b = strconv.AppendInt(b, int64(r.CachedTokens), 10)
	if ev.kind == wlPrefillStat {
		st := &a.stages[rolePrefill]
		b = append(b, ", output_len=1, attempts=0, type=prefill): "...)
		b = ms(b, "bootstrap_duration", st.entry, st.bootstrapEnd)
		b = ms(b, "queue_duration", st.bootstrapEnd, st.queueEnd)
		b = ms(b, "forward_duration", st.queueEnd, st.transferEnd)
		b = appendEntryTime(b, st.entry)
		total := float64(r.InputTokens) * kvBytesPerToken
		b = append(b, ", transfer_speed="...)
		b = strconv.AppendFloat(b, total/(1<<30)/(float64(max(1, st.transferEnd-st.forwardEnd))/1e9), 'f', 2, 64)
		b = append(b, " GB/s, transfer_total="...)
		b = strconv.AppendFloat(b, total/(1<<20), 'f', 2, 64)
		return append(b, " MB\n"...)
	}
	st := &a.stages[roleDecode]
	b = append(b, ", output_len="...)
	b = strconv.AppendInt(b, int64(r.OutputTokens), 10)
	b = append(b, ", attempts=0, type=decode): "...)
	b = ms(b, "bootstrap_duration", st.entry, st.bootstrapEnd)
	b = ms(b, "alloc_wait_duration", st.bootstrapEnd, st.allocEnd)
	b = ms(b, "transfer_duration", st.allocEnd, st.transferEnd)
	b = ms(b, "queue_duration", st.transferEnd, st.queueEnd)
	b = ms(b, "forward_duration", st.queueEnd, st.forwardEnd)
	b = appendEntryTime(b, st.entry)
	return append(b, '\n')
}

// appendEntryTime appends "entry_time=<epoch seconds, 3 decimals>", the
// wall clock SGLang records (time.time()).
func appendEntryTime(b []byte, ns int64) []byte {
	b = append(b, "entry_time="...)
	b = strconv.AppendInt(b, ns/1e9, 10)
	return appendFrac(b, ns, '.', 3)
}

// TokenSpeed scheduler lines (§7): the colourised
// "[time,ms  ATTN TP RANK n] - INFO - msg (file:line)" layout. Only the
// engine's rank 0 logs, for the whole scheduler.

func (wl *workerLog) tokenspeedLine(b []byte, t int64, msg, where string) []byte {
	b = append(b, "\x1b[38;20m["...)
	b = wl.tsp.append(b, t)
	b = append(b, "  ATTN TP RANK 0] - INFO - "...)
	b = append(b, msg...)
	b = append(b, " ("...)
	b = append(b, where...)
	return append(b, ")\x1b[0m\n"...)
}

func (wl *workerLog) tokenspeedPrefill(b []byte, ev wlEvent) []byte {
	rl := &wl.occ.ranks[wl.widx][ev.rank]
	batch := rl.batches[ev.req]
	var msg []byte
	msg = append(msg, "Prefill batch. "...)
	msg = appendField(msg, "#new-seq", int64(batch.seqs))
	msg = appendField(msg, "#new-token", int64(batch.newTk))
	msg = appendField(msg, "#cached-token", int64(batch.cached))
	msg = appendField(msg, "#running-req", int64(rl.forward.count(ev.t)))
	msg = append(msg, "#queue-req: "...)
	msg = strconv.AppendInt(msg, int64(rl.queue.count(ev.t)), 10)
	return wl.tokenspeedLine(b, ev.t, string(msg), "batch_log.py:98")
}

func (wl *workerLog) tokenspeedDecode(b []byte, tk *tickSource) []byte {
	t := tk.next
	running, tokens := wl.occ.worker(wl.widx, func(r *rankLoad) *load { return &r.running }, t)
	_, gen := wl.occ.worker(wl.widx, func(r *rankLoad) *load { return &r.gen }, t)
	queued, _ := wl.occ.worker(wl.widx, func(r *rankLoad) *load { return &r.dqueue }, t)
	active := min(tokenspeedPages, (int64(tokens)+tokenspeedPage-1)/tokenspeedPage)
	cached := (tokenspeedPages - active) / 3
	var msg []byte
	msg = append(msg, "Decode batch. "...)
	msg = appendField(msg, "#running-req", int64(running))
	msg = append(msg, "#pages(active/cached/total): "...)
	msg = strconv.AppendInt(msg, active, 10)
	msg = append(msg, '/')
	msg = strconv.AppendInt(msg, cached, 10)
	msg = append(msg, '/')
	msg = strconv.AppendInt(msg, tokenspeedPages, 10)
	msg = append(msg, ", "...)
	msg = appendFieldF(msg, "page ratio", float64(active)/tokenspeedPages)
	msg = appendFieldF(msg, "gen throughput (token/s)", gen)
	msg = append(msg, "#queue-req: "...)
	msg = strconv.AppendInt(msg, int64(queued), 10)
	return wl.tokenspeedLine(b, t, string(msg), "batch_log.py:151")
}
