//go:build js && wasm

// Command wasm is the page's query engine: a thin syscall/js adapter that
// decodes the core shard into internal/query's Engine and answers JSON
// questions with it. All behaviour lives in internal/query; this file only
// moves bytes across the boundary.
package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

var engine *query.Engine

func main() {
	api := js.Global().Get("Object").New()
	api.Set("load", js.FuncOf(load))
	api.Set("handle", js.FuncOf(handle))
	api.Set("loadShard", js.FuncOf(loadShard))
	api.Set("loadEvidence", js.FuncOf(loadEvidence))
	api.Set("plot", js.FuncOf(plot))
	api.Set("metricCache", js.FuncOf(metricCache))
	js.Global().Set("dsightEngine", api)
	if ready := js.Global().Get("__dsightEngineReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // keep the exported functions alive
}

// load(bytes: Uint8Array) decodes an uncompressed core shard and returns the
// summary envelope (or an error envelope) as a JSON string.
func load(_ js.Value, args []js.Value) any {
	if len(args) != 1 {
		return string(errorEnvelope("load takes one Uint8Array"))
	}
	raw := make([]byte, args[0].Get("length").Int())
	js.CopyBytesToGo(raw, args[0])
	s, err := shard.Decode(raw)
	if err != nil {
		return string(errorEnvelope("core shard: " + err.Error()))
	}
	core, err := catalog.Open(s)
	if err != nil {
		return string(errorEnvelope("core shard: " + err.Error()))
	}
	e, err := query.New(core)
	if err != nil {
		return string(errorEnvelope(err.Error()))
	}
	engine = e
	return string(engine.Handle([]byte(`{"op":"summary"}`)))
}

// handle(request: string) answers one query; see internal/query.Handle.
func handle(_ js.Value, args []js.Value) any {
	if engine == nil {
		return string(errorEnvelope("engine has no data loaded"))
	}
	if len(args) != 1 || args[0].Type() != js.TypeString {
		return string(errorEnvelope("handle takes one JSON string"))
	}
	return string(engine.Handle([]byte(args[0].String())))
}

// loadShard(id: string, bytes: Uint8Array) hands the engine the decoded
// payload of a metric shard; it returns {"ok":true} or an error envelope.
func loadShard(_ js.Value, args []js.Value) any {
	if engine == nil {
		return string(errorEnvelope("engine has no data loaded"))
	}
	if len(args) != 2 || args[0].Type() != js.TypeString {
		return string(errorEnvelope("loadShard takes a shard id and one Uint8Array"))
	}
	raw := make([]byte, args[1].Get("length").Int())
	js.CopyBytesToGo(raw, args[1])
	if err := engine.LoadShard(args[0].String(), raw); err != nil {
		return string(errorEnvelope(err.Error()))
	}
	return `{"ok":true}`
}

// loadEvidence(bytes: Uint8Array) hands the engine the decoded evidence
// shard of the report's traced requests; it returns {"ok":true} or an
// error envelope.
func loadEvidence(_ js.Value, args []js.Value) any {
	if engine == nil {
		return string(errorEnvelope("engine has no data loaded"))
	}
	if len(args) != 1 {
		return string(errorEnvelope("loadEvidence takes one Uint8Array"))
	}
	raw := make([]byte, args[0].Get("length").Int())
	js.CopyBytesToGo(raw, args[0])
	s, err := shard.Decode(raw)
	if err == nil {
		err = engine.AttachEvidence(s)
	}
	if err != nil {
		return string(errorEnvelope("evidence shard: " + err.Error()))
	}
	return `{"ok":true}`
}

// plotBuf is reused by every plot answer: each is copied out at once.
var plotBuf []byte

// plot(request: string, into?: Uint8Array) answers a metric chart: the
// little-endian float64s of internal/query.Plot.Encode, or a JSON error
// envelope string, which lists the shards to load when that is the cause.
// Given into with room, the answer is copied there and its length
// returned; otherwise it comes back as a view on a new array with room to
// spare, whose buffer the caller can pass as into next time. Writing into
// memory the page already holds matters: the first write to a fresh
// buffer pays a page fault per 4 KB, which costs more than the copy.
func plot(_ js.Value, args []js.Value) any {
	if engine == nil {
		return string(errorEnvelope("engine has no data loaded"))
	}
	if len(args) < 1 || len(args) > 2 || args[0].Type() != js.TypeString {
		return string(errorEnvelope("plot takes one JSON string and an optional Uint8Array"))
	}
	bin, env := engine.AppendPlot(plotBuf[:0], []byte(args[0].String()))
	if env != nil {
		return string(env)
	}
	plotBuf = bin
	if len(args) == 2 && args[1].InstanceOf(uint8Array) && args[1].Length() >= len(bin) {
		js.CopyBytesToJS(args[1], bin)
		return len(bin)
	}
	out := uint8Array.New(len(bin) + len(bin)/2)
	js.CopyBytesToJS(out, bin)
	return out.Call("subarray", 0, len(bin))
}

var uint8Array = js.Global().Get("Uint8Array")

// metricCache(maxBytes?: number, maxPoints?: number) reports the metric
// shards the engine holds and its budget as {"ok":true,"result":…} (see
// internal/query.MetricCacheStatus); given numbers set the budget first.
func metricCache(_ js.Value, args []js.Value) any {
	if engine == nil {
		return string(errorEnvelope("engine has no data loaded"))
	}
	if len(args) > 0 {
		st := engine.MetricCache()
		maxBytes, maxPoints := st.MaxBytes, st.MaxPoints
		for k, dst := range []*int64{&maxBytes, &maxPoints} {
			if k >= len(args) || args[k].Type() != js.TypeNumber {
				continue
			}
			x := args[k].Float()
			if !(x >= 0 && x <= 1<<53) { // also refuses NaN
				return string(errorEnvelope("a metric cache budget is a whole number from 0 to 2^53"))
			}
			*dst = int64(x)
		}
		if err := engine.SetMetricCacheBudget(maxBytes, maxPoints); err != nil {
			return string(errorEnvelope(err.Error()))
		}
	}
	out, _ := json.Marshal(struct {
		OK     bool                    `json:"ok"`
		Result query.MetricCacheStatus `json:"result"`
	}{true, engine.MetricCache()})
	return string(out)
}

func errorEnvelope(msg string) []byte {
	return query.ErrorEnvelope(msg)
}
