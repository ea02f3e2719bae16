package query

import (
	"encoding/json"
	"fmt"

	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/shard"
)

// A request's server records and lifecycle are not stored rendered: the
// report keeps the joined evidence in chunks (internal/lifecycle's
// encoding), and the engine renders one request when asked, with the same
// code the build ran. A chunk inflates and indexes in a few milliseconds;
// the few most recently used stay decoded, since a user inspecting a
// request usually looks at its neighbours next.

// chunkCacheSize is how many decoded chunks stay in memory.
const chunkCacheSize = 8

type chunkCache struct {
	order []int // most recent last
	byID  map[int]*lifecycle.Chunk
}

// chunk returns decoded chunk k. The caller holds e.chunkMu.
func (e *Engine) chunk(k int) (*lifecycle.Chunk, error) {
	cc := &e.chunks
	if c, ok := cc.byID[k]; ok {
		for n, id := range cc.order {
			if id == k {
				cc.order = append(append(cc.order[:n:n], cc.order[n+1:]...), k)
				break
			}
		}
		return c, nil
	}
	raw, err := e.c.ServerChunk(k)
	if err != nil {
		return nil, err
	}
	c, err := lifecycle.DecodeChunk(raw)
	if err != nil {
		return nil, err
	}
	if cc.byID == nil {
		cc.byID = map[int]*lifecycle.Chunk{}
	}
	if len(cc.order) == chunkCacheSize {
		delete(cc.byID, cc.order[0])
		cc.order = cc.order[1:]
	}
	cc.byID[k] = c
	cc.order = append(cc.order, k)
	return c, nil
}

// AttachEvidence adds the report's evidence shard; until then requests
// with server evidence answer with EvidencePending set and nothing else
// about their server side.
func (e *Engine) AttachEvidence(s *shard.Shard) error {
	e.chunkMu.Lock()
	defer e.chunkMu.Unlock()
	if err := e.c.AttachEvidence(s); err != nil {
		return err
	}
	e.chunks = chunkCache{}
	return nil
}

// frame renders records relative to the report's origin, with evidence
// resolved to the report's source ids.
func (e *Engine) frame() lifecycle.Frame {
	e.frameOnce.Do(func() {
		e.lcFrame = lifecycle.Frame{OriginNS: e.c.Meta.OriginNS, Sources: make(map[string]int, len(e.c.Sources))}
		for _, s := range e.c.Sources {
			e.lcFrame.Sources[s.Path] = s.ID
		}
	})
	return e.lcFrame
}

// serverDetail renders the server evidence of request_server row k.
func (e *Engine) serverDetail(k int) (lifecycle.Detail, error) {
	e.chunkMu.Lock()
	c, err := e.chunk(int(e.c.Server.Chunk[k]))
	var r *lifecycle.Request
	if err == nil {
		r, err = c.Request(int(e.c.Server.Slot[k]))
	}
	e.chunkMu.Unlock()
	if err != nil {
		return lifecycle.Detail{}, err
	}
	return r.Detail(e.frame()), nil
}

// detail assembles request i's full record.
func (e *Engine) detail(i int) (RequestDetail, error) {
	d := RequestDetail{RequestItem: e.item(i), BridgeEvidence: emptyList, Spans: emptyList, Engine: emptyList, WorkerBindings: emptyList}
	k := e.serverRow[i]
	if k < 0 {
		d.Lifecycle = unavailableLifecycle(e.r.ID[i])
		return d, nil
	}
	e.chunkMu.Lock()
	pending := !e.c.HasEvidence()
	e.chunkMu.Unlock()
	if pending {
		d.Lifecycle, d.EvidencePending = unavailableLifecycle(e.r.ID[i]), true
		return d, nil
	}
	sd, err := e.serverDetail(int(k))
	if err != nil {
		return d, fmt.Errorf("request %q: stored server evidence: %w", e.r.ID[i], err)
	}
	for _, f := range []struct {
		dst *json.RawMessage
		v   any
	}{{&d.BridgeEvidence, sd.BridgeEvidence}, {&d.Spans, sd.Spans}, {&d.Engine, sd.Engine}, {&d.WorkerBindings, sd.WorkerBindings}, {&d.Lifecycle, sd.Lifecycle}} {
		if *f.dst, err = json.Marshal(f.v); err != nil {
			return d, err
		}
	}
	return d, nil
}
