package query

import (
	"fmt"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/shard"
)

// A request's server records and lifecycle are not stored rendered: the
// report keeps the joined evidence in chunks (internal/catalog's evidence
// encoding), and the engine decodes one request when asked, derives its
// lifecycle and shapes the answer. A chunk inflates and indexes in a few
// milliseconds; the few most recently used stay decoded, since a user
// inspecting a request usually looks at its neighbours next. The spans no
// request owns are stored the same way, in chunks of their own.

// chunkCacheSize is how many decoded chunks stay in memory.
const chunkCacheSize = 8

type chunkCache struct {
	order []int // most recent last
	byID  map[int]*catalog.EvidenceChunk
}

// chunk returns decoded chunk k of cc, reading it with raw when it is not
// held. The caller holds e.chunkMu.
func (cc *chunkCache) chunk(k int, raw func(int) ([]byte, error)) (*catalog.EvidenceChunk, error) {
	if c, ok := cc.byID[k]; ok {
		for n, id := range cc.order {
			if id == k {
				cc.order = append(append(cc.order[:n:n], cc.order[n+1:]...), k)
				break
			}
		}
		return c, nil
	}
	b, err := raw(k)
	if err != nil {
		return nil, err
	}
	c, err := catalog.DecodeEvidenceChunk(b)
	if err != nil {
		return nil, err
	}
	if cc.byID == nil {
		cc.byID = map[int]*catalog.EvidenceChunk{}
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
	// A piece only adds chunks (each is given once, checked against its
	// name first), so the chunks cached stay; a whole evidence shard
	// replaces every chunk.
	if _, piece := s.Table(catalog.TableEvidencePiece); !piece {
		e.chunks = chunkCache{}
	}
	return nil
}

// frame renders records relative to the report's origin, with evidence
// resolved to the report's source ids.
func (e *Engine) frame() frame {
	e.frameOnce.Do(func() {
		e.evFrame = frame{originNS: e.c.Meta.OriginNS, sources: make(map[string]int, len(e.c.Sources))}
		for _, s := range e.c.Sources {
			e.evFrame.sources[s.Path] = s.ID
		}
	})
	return e.evFrame
}

// serverDetail renders the server evidence of request_server row k.
func (e *Engine) serverDetail(k int) (ServerDetail, error) {
	e.chunkMu.Lock()
	c, err := e.chunks.chunk(int(e.c.Server.Chunk[k]), e.c.ServerChunk)
	if err == nil {
		r, err := c.Request(int(e.c.Server.Slot[k]))
		e.chunkMu.Unlock()
		if err != nil {
			return ServerDetail{}, err
		}
		return e.frame().serverDetail(r), nil
	}
	e.chunkMu.Unlock()
	return ServerDetail{}, err
}

// serverSpan renders server span k, one no request owns.
func (e *Engine) serverSpan(k int) (ServerSpanRecord, error) {
	ss := &e.c.ServerSpans
	e.chunkMu.Lock()
	c, err := e.spanChunks.chunk(int(ss.Chunk[k]), e.c.ServerSpanChunk)
	if err == nil {
		sp, err := c.Span(int(ss.Slot[k]))
		e.chunkMu.Unlock()
		if err != nil {
			return ServerSpanRecord{}, fmt.Errorf("server span %d: stored evidence: %w", k, err)
		}
		return e.frame().serverSpanRecord(sp), nil
	}
	e.chunkMu.Unlock()
	return ServerSpanRecord{}, fmt.Errorf("server span %d: stored evidence: %w", k, err)
}

// detail assembles request i's full record.
func (e *Engine) detail(i int) (RequestDetail, error) {
	d := RequestDetail{RequestItem: e.item(i), ServerDetail: ServerDetail{
		BridgeEvidence: []EvidenceRecord{}, Spans: []SpanRecord{}, Engine: []EngineRecord{}, WorkerBindings: []BindingRecord{},
	}}
	k := e.serverRow[i]
	if k < 0 {
		d.Lifecycle = unavailableLifecycle(e.r.ID[i])
		return d, nil
	}
	held, err := e.holdsChunk(int(e.c.Server.Chunk[k]))
	if err != nil {
		return d, fmt.Errorf("request %q: %w", e.r.ID[i], err)
	}
	if !held {
		d.Lifecycle, d.EvidencePending = unavailableLifecycle(e.r.ID[i]), true
		return d, nil
	}
	sd, err := e.serverDetail(int(k))
	if err != nil {
		return d, fmt.Errorf("request %q: stored server evidence: %w", e.r.ID[i], err)
	}
	d.ServerDetail = sd
	return d, nil
}
