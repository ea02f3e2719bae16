package query

import (
	"fmt"
	"slices"

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

// chunkCacheBytes bounds the decoded chunks that stay in memory, by what
// each holds: its inflated bytes (the records are views on them) and as
// much again for its string table, a copy of part of them. A count of
// eight chunks held ~2 MB, so a request visited again after a few others
// spread over the run paid its chunk's inflate again (2.3 ms of a 3.4 ms
// lifecycle on the page, docs/measurements.md, issue 17); 32 MiB keeps
// about a hundred.
const chunkCacheBytes = 32 << 20

type chunkCache struct {
	order []int // most recent last
	byID  map[int]heldChunk
	bytes int // held by the chunks in byID
	max   int // the budget; 0: chunkCacheBytes
}

type heldChunk struct {
	c     *catalog.EvidenceChunk
	bytes int
}

// chunk returns decoded chunk k of cc, reading it with raw when it is not
// held; the least recently used chunks go while the held bytes exceed the
// budget, never the one asked for. The caller holds e.chunkMu.
func (cc *chunkCache) chunk(k int, raw func(int) ([]byte, error)) (*catalog.EvidenceChunk, error) {
	if h, ok := cc.byID[k]; ok {
		if n := slices.Index(cc.order, k); n != len(cc.order)-1 {
			cc.order = append(slices.Delete(cc.order, n, n+1), k)
		}
		return h.c, nil
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
		cc.byID = map[int]heldChunk{}
	}
	max := cc.max
	if max <= 0 {
		max = chunkCacheBytes
	}
	held := 2 * len(b)
	for len(cc.order) > 0 && cc.bytes+held > max {
		cc.bytes -= cc.byID[cc.order[0]].bytes
		delete(cc.byID, cc.order[0])
		cc.order = cc.order[1:]
	}
	cc.byID[k] = heldChunk{c, held}
	cc.bytes += held
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

// serverSide is request i's server records; pending says its evidence is
// not attached yet (the records then say nothing about it).
func (e *Engine) serverSide(i int) (sd ServerDetail, pending bool, err error) {
	sd = ServerDetail{BridgeEvidence: []EvidenceRecord{}, Spans: []SpanRecord{}, Engine: []EngineRecord{}, WorkerBindings: []BindingRecord{}}
	k := e.serverRow[i]
	if k < 0 {
		sd.Lifecycle = unavailableLifecycle(e.r.ID[i])
		return sd, false, nil
	}
	held, err := e.holdsChunk(int(e.c.Server.Chunk[k]))
	if err != nil {
		return sd, false, fmt.Errorf("request %q: %w", e.r.ID[i], err)
	}
	if !held {
		sd.Lifecycle = unavailableLifecycle(e.r.ID[i])
		return sd, true, nil
	}
	stored, err := e.serverDetail(int(k))
	if err != nil {
		return sd, false, fmt.Errorf("request %q: stored server evidence: %w", e.r.ID[i], err)
	}
	return stored, false, nil
}
