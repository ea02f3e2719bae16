package synth

import (
	"strconv"
	"time"
)

// TRT-LLM iteration records (print_iter_log), written by rank 0 of a
// worker while it has requests in forward (prefill) or running (decode),
// once per iterLogPeriod. So that a run of any size holds all five of the
// executor's field orders, the run is cut into five equal segments and a
// worker writes order (worker index + segment) mod 5 in each — as if the
// executor were upgraded between benchmark phases; the iteration number
// restarts with each, as it does per engine lifecycle.

const (
	iterLogPeriod = 1 * second
	// itersPerRecord is how many executor iterations one record stands
	// for: the iteration number advances by it between records.
	itersPerRecord = 25
	// tickTRTLLM marks the iteration tick source.
	tickTRTLLM = -2
)

// TRTLLMFieldOrders names the field orders in the order workers take them.
var TRTLLMFieldOrders = []string{"trtllm-v1", "trtllm-v2", "trtllm-v3", "trtllm-v4", "trtllm-v5"}

// trtllmStamps are the logger prefix ([MM/DD/YYYY-HH:MM:SS]) and the
// record's own timestamp (YYYY-MM-DD HH:MM:SS), both worker-local.
type trtllmStamps struct {
	prefix, record localStamp
}

func newTRTLLMStamps(loc *time.Location) trtllmStamps {
	return trtllmStamps{prefix: localStamp{c: newClock(loc, "01/02/2006-15:04:05")}, record: newLocalStamp(loc, 0)}
}

func (wl *workerLog) trtllmIteration(b []byte, tk *tickSource) []byte {
	t := tk.next
	pick := func(r *rankLoad) *load { return &r.running }
	if wl.w.role == "prefill" {
		pick = func(r *rankLoad) *load { return &r.forward }
	}
	running, tokens := wl.occ.worker(wl.widx, pick, t)
	if wl.trtllmEnd == 0 {
		wl.trtllmEnd = wl.sv.p.EndNS()
	}
	origin := wl.sv.p.OriginNS
	segment := int(min(4, max(0, (t-origin)/max(1, (wl.trtllmEnd-origin)/5))))
	order := (wl.widx + segment) % len(TRTLLMFieldOrders)
	if segment != wl.trtllmSegment {
		wl.trtllmSegment, wl.trtllmRecords = segment, 0
	}
	wl.trtllmRecords++
	first := wl.trtllmRecords == 1
	iter := int64(wl.trtllmRecords-1) * itersPerRecord
	host := 8 + 0.25*float64(running)
	util := min(1, tokens/float64(decodeCapacity*max(1, wl.w.dp)))
	// The previous device step is the previous record's step: it lags.
	prev := ""
	if !first {
		prev = strconv.FormatFloat(8+0.25*float64(wl.prevRunning), 'f', 2, 64) + "ms"
	} else {
		prev = "N/A"
	}
	wl.prevRunning = running
	n := strconv.Itoa(running)
	ctx := strconv.Itoa(running / 4)
	gen := strconv.Itoa(running - running/4)
	states := "{'num_ctx_requests': " + ctx + ", 'num_ctx_tokens': " + strconv.Itoa(512*(running/4)) + ", 'num_generation_tokens': " + gen
	if order >= 3 {
		states += ", 'cached_kv_tokens': " + strconv.Itoa(int(tokens)/2)
	}
	states += "}"
	ts := string(wl.trtllm.record.append(nil, t))
	hostMS := strconv.FormatFloat(host, 'f', 2, 64) + "ms"
	elapsed := strconv.FormatFloat(host/1000, 'g', -1, 64)
	total := "currank_total_requests = " + n + "/" + n

	b = append(b, '[')
	b = wl.trtllm.prefix.append(b, t)
	b = append(b, "] [TRT-LLM] [I] iter = "...)
	b = strconv.AppendInt(b, iter, 10)
	b = append(b, ", global_rank = 0, rank = 0, "...)
	switch order {
	case 0: // v1
		b = append(b, total+", elapsed_time = "+elapsed+"s, timestamp = "+ts+", states = "+states...)
	case 1: // v2
		b = append(b, total+", elapsed_time = "+elapsed+"s, timestamp = "+ts+", num_scheduled_requests: "+n+", states = "+states...)
	case 2: // v3
		b = append(b, total+", host_step_time = "+hostMS+", prev_device_step_time = "+prev+", timestamp = "+ts+", num_scheduled_requests: "+n+", states = "+states...)
	case 3: // v4
		b = append(b, "num_scheduled_requests = "+n+", kv_cache_util = "+strconv.FormatFloat(util, 'f', 3, 64)+", "+total+", host_step_time = "+hostMS+", prev_device_step_time = "+prev+", timestamp = "+ts+", states = "+states...)
	default: // v5: v4 plus cached_kv_len and the trailing scheduler counts
		b = append(b, "num_scheduled_requests = "+n+", kv_cache_util = "+strconv.FormatFloat(util, 'f', 3, 64)+", cached_kv_len = "+strconv.Itoa(int(tokens)/2)+", "+total+
			", host_step_time = "+hostMS+", prev_device_step_time = "+prev+", timestamp = "+ts+", states = "+states+
			", num_active = "+n+", num_fetched = 0, num_dummy = 0, num_unscheduled = 0"...)
	}
	return append(b, '\n')
}
