//go:build js && wasm

// Command wasm is the page's query engine: a thin syscall/js adapter over
// internal/query's Engine with one request path and one byte hand-over,
// plus the SHA-256 the page checks payloads with where the browser has no
// crypto.subtle. All behaviour lives in internal/query; this file only
// moves bytes across the boundary.
//
//	handle(request: string, into?: Uint8Array) → string | number | Uint8Array
//	give(name: string, bytes: Uint8Array, encoding?: "gzip" | parts) → string
//	sha256(bytes: Uint8Array) → string (lowercase hex)
//	settle() → undefined (the page is ready: the collector is back on)
//	collect(force?: boolean) → boolean (a collection in the page's idle time)
//	memory() → [cycles, heap, goal] (collector.go)
//	wantEvidence(fn: (chunks: number[]) → string) → string
package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"syscall/js"
	"unsafe"

	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

var engine *query.Engine

func main() {
	api := js.Global().Get("Object").New()
	api.Set("handle", js.FuncOf(handle))
	api.Set("give", js.FuncOf(give))
	api.Set("sha256", js.FuncOf(sum256))
	api.Set("settle", js.FuncOf(settle))
	api.Set("collect", js.FuncOf(collect))
	api.Set("memory", js.FuncOf(memory))
	api.Set("wantEvidence", js.FuncOf(wantEvidence))
	js.Global().Set("dsightEngine", api)
	if ready := js.Global().Get("__dsightEngineReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // keep the exported functions alive
}

// give(name, bytes) hands the engine an uncompressed shard: "core" starts
// an engine on the core shard and answers the summary envelope;
// "evidence" or a metric shard's id hands that shard over and answers
// {"ok":true} or a failure envelope. With encoding "gzip" the bytes are
// the shard's gzip payload, inflated here: for a small shard one
// synchronous inflate costs less than the browser's DecompressionStream,
// whose stream hops through several tasks.
//
// give("evidence", bytes, parts), parts the JSON of the manifest's parts
// ([{id, path, bytes}]), is for an answer that needs the shard now: the
// engine checks each part's SHA-256 against its name on the one copy it
// decodes (query.Engine.GiveNamedEvidence), where the page hashed a copy
// through sha256 and give then copied the bytes again and computed their
// checksum.
func give(_ js.Value, args []js.Value) any {
	if len(args) < 2 || len(args) > 3 || args[0].Type() != js.TypeString || !args[1].InstanceOf(uint8Array) {
		return failure(query.CodeBadArgs, "give takes a name, one Uint8Array and an optional encoding")
	}
	raw := make([]byte, args[1].Length())
	js.CopyBytesToGo(raw, args[1])
	if len(args) == 3 {
		enc := args[2]
		if enc.Type() == js.TypeString && args[0].String() == query.GiveEvidence && engine != nil {
			var parts []shard.Part
			err := json.Unmarshal([]byte(enc.String()), &parts)
			if err == nil {
				err = engine.GiveNamedEvidence(raw, parts)
			}
			if err != nil {
				return string(query.Failure(err))
			}
			return `{"ok":true}`
		}
		if enc.Type() != js.TypeString || enc.String() != "gzip" {
			return failure(query.CodeBadArgs, "give's encoding is \"gzip\" or absent")
		}
		var err error
		if raw, err = shard.Decompress(raw); err != nil {
			return failure(query.CodeBadArgs, args[0].String()+": "+err.Error()+"; republish the report's detail/ directory")
		}
	}
	if name := args[0].String(); name == "core" {
		mark("copied")
		// Everything the core decodes stays live in the engine: a collection
		// while it decodes (the heap doubling from a few MB to ~50 on 100,000
		// requests) would mark and sweep what it cannot free, on the page's
		// one thread. One collection after it, at most, instead.
		// It stays off through the page's first render (settle turns it
		// back on): restored at once, its heap goal would still be the few
		// MB before the core, so the next allocation would start marking
		// all ~50 MB inside the first render.
		collectorOff()
		e, err := query.OpenMarked(raw, mark)
		if err != nil {
			settle(js.Value{}, nil)
			return string(query.Failure(err))
		}
		engine = e
		return string(engine.Handle([]byte(`{"op":"summary"}`)))
	} else if engine == nil {
		return failure(query.CodeInternal, "engine has no data loaded")
	} else if err := engine.Give(name, raw); err != nil {
		return string(query.Failure(err))
	}
	return `{"ok":true}`
}

// wantEvidence(fn) lets the engine ask the page for the evidence chunks
// an answer needs (query.Engine.SetEvidenceSource): fn gives the shards
// holding them, through give, before it returns "", or returns why it
// could not (a shard it holds but found damaged).
func wantEvidence(_ js.Value, args []js.Value) any {
	if engine == nil {
		return failure(query.CodeInternal, "engine has no data loaded")
	}
	if len(args) != 1 || args[0].Type() != js.TypeFunction {
		return failure(query.CodeBadArgs, "wantEvidence takes one function")
	}
	fn := args[0]
	engine.SetEvidenceSource(func(chunks []int) error {
		ks := make([]any, len(chunks))
		for i, k := range chunks {
			ks[i] = k
		}
		if r := fn.Invoke(ks); r.Type() == js.TypeString && r.String() != "" {
			return errors.New(r.String())
		}
		return nil
	})
	return `{"ok":true}`
}

var performance = js.Global().Get("performance")

// mark puts the core's start-up steps on the page's performance timeline
// (dsight:core-copied, -decoded, -viewed, -indexed) beside the page's own
// marks (web/src/main.js).
func mark(step string) {
	if performance.Type() == js.TypeObject {
		performance.Call("mark", "dsight:core-"+step)
	}
}

// sum256(bytes) is the lowercase hex SHA-256 of bytes.
func sum256(_ js.Value, args []js.Value) any {
	if len(args) != 1 || !args[0].InstanceOf(uint8Array) {
		return ""
	}
	raw := make([]byte, args[0].Length())
	js.CopyBytesToGo(raw, args[0])
	sum := shard.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// answerBuf is reused by every binary answer: each is copied out at once.
var answerBuf []byte

// handle(request, into?) answers one question (internal/query's
// AppendAnswer): a JSON envelope string, or for a binary op (plot) its
// bytes. Given into with room, they are copied there and their length
// returned; otherwise they come back as a view on a new array with room
// to spare, whose buffer the caller can pass as into next time. Writing
// into memory the page already holds matters: the first write to a fresh
// buffer pays a page fault per 4 KB, which costs more than the copy.
func handle(_ js.Value, args []js.Value) any {
	if engine == nil {
		return failure(query.CodeInternal, "engine has no data loaded")
	}
	if len(args) < 1 || len(args) > 2 || args[0].Type() != js.TypeString {
		return failure(query.CodeBadArgs, "handle takes one JSON string and an optional Uint8Array")
	}
	out, binary := engine.AppendAnswer(answerBuf[:0], []byte(args[0].String()))
	answerBuf = out
	if !binary {
		// The JSON is decoded into a JavaScript string as this function
		// returns (js.FuncOf sets its result at once), before answerBuf
		// is written again: a Go string copy of a 1 MB page first was
		// a tenth of queryRequests' time.
		return unsafe.String(unsafe.SliceData(out), len(out))
	}
	if len(args) == 2 && args[1].InstanceOf(uint8Array) && args[1].Length() >= len(out) {
		js.CopyBytesToJS(args[1], out)
		return len(out)
	}
	arr := uint8Array.New(len(out) + len(out)/2)
	js.CopyBytesToJS(arr, out)
	return arr.Call("subarray", 0, len(out))
}

var uint8Array = js.Global().Get("Uint8Array")

func failure(code query.Code, msg string) string {
	return string(query.ErrorEnvelope(code, msg))
}
