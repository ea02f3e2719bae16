package query

import (
	lru "container/list"
	"fmt"
	"slices"
	"sync"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// The Nsight detail shards handed over with Give are kept in a least
// recently used cache bounded by decoded bytes. A shard is never dropped
// before an answer has read it, so a question never fails for want of a
// shard it was told to load; after an answer the least recently used read
// shards go until the cache is within its budget. A dropped shard is named
// again by the next shards_needed.

// DefaultDetailCacheBytes is the decoded-byte budget of the detail cache.
const DefaultDetailCacheBytes = 64 << 20

type detailEntry struct {
	id    string
	bytes int64
	read  bool
	nvtx  *catalog.NVTXChunk
	cpu   *catalog.CPUData
	elem  *lru.Element
}

type detailStore struct {
	mu       sync.Mutex
	index    map[string][2]int // shard id → (profile index, chunk index or -1 for CPU)
	entries  map[string]*detailEntry
	lru      lru.List // front: most recent
	bytes    int64
	maxBytes int64
}

func (e *Engine) detailIndexLocked() {
	d := &e.nsight
	if d.index != nil {
		return
	}
	d.index, d.entries, d.maxBytes = map[string][2]int{}, map[string]*detailEntry{}, DefaultDetailCacheBytes
	for i, p := range e.c.Profiles {
		for k, c := range p.Chunks {
			d.index[c.ID] = [2]int{i, k}
		}
		if p.CPU != nil && p.CPU.Shard != nil {
			d.index[p.CPU.Shard.ID] = [2]int{i, -1}
		}
	}
}

// isDetailShard reports whether id names a profile's detail shard.
func (e *Engine) isDetailShard(id string) bool {
	e.nsight.mu.Lock()
	defer e.nsight.mu.Unlock()
	e.detailIndexLocked()
	_, ok := e.nsight.index[id]
	return ok
}

// loadDetail decodes and caches a detail shard.
func (e *Engine) loadDetail(id string, raw []byte) error {
	d := &e.nsight
	d.mu.Lock()
	e.detailIndexLocked()
	at, ok := d.index[id]
	d.mu.Unlock()
	if !ok {
		return notFound("no profile uses shard %s", id)
	}
	s, err := shard.Decode(raw)
	if err != nil {
		return badArgs("detail shard %s: %v", id, err)
	}
	en := &detailEntry{id: id, bytes: int64(len(raw))}
	p := &e.c.Profiles[at[0]]
	if at[1] < 0 {
		if en.cpu, err = catalog.DecodeCPU(s); err == nil && len(en.cpu.Time) != p.CPU.Samples {
			err = fmt.Errorf("holds %d samples, the profile %d", len(en.cpu.Time), p.CPU.Samples)
		}
	} else if en.nvtx, err = catalog.DecodeNVTXChunk(s); err == nil && en.nvtx.Len() != p.Chunks[at[1]].Rows {
		err = fmt.Errorf("holds %d rows, its descriptor %d", en.nvtx.Len(), p.Chunks[at[1]].Rows)
	}
	if err != nil {
		return badArgs("detail shard %s: %v", id, err)
	}
	// The budget bounds what the engine holds: the decoded columns, or the
	// payload when that is larger. Packed (catalog.NVTXChunk), 8,192 busy
	// ranges hold 40–50 KiB where five int64s a row held 320 KiB, so a
	// profile of five million fits the budget whole.
	en.bytes = max(en.bytes, heldBytes(en))
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.entries[id]; ok {
		d.lru.Remove(old.elem)
		d.bytes -= old.bytes
	}
	en.elem = d.lru.PushFront(en)
	d.entries[id] = en
	d.bytes += en.bytes
	return nil
}

// detailClaim returns the held shards among ids and the missing ones.
func (e *Engine) detailClaim(ids []string) (map[string]*detailEntry, []ShardNeed) {
	d := &e.nsight
	d.mu.Lock()
	defer d.mu.Unlock()
	e.detailIndexLocked()
	held := map[string]*detailEntry{}
	var missing []ShardNeed
	for _, id := range ids {
		if en, ok := d.entries[id]; ok {
			held[id] = en
			continue
		}
		at := d.index[id]
		p := &e.c.Profiles[at[0]]
		var sh *model.Shard
		if at[1] >= 0 {
			sh = &p.Chunks[at[1]].Shard
		} else {
			sh = p.CPU.Shard
		}
		missing = append(missing, ShardNeed{ID: id, Series: []int{}, Bytes: sh.Bytes, Parts: shardParts(sh.Parts), DecodedBytes: sh.DecodedBytes})
	}
	return held, missing
}

// detailRelease marks the shards an answer read and trims the cache.
func (e *Engine) detailRelease(held map[string]*detailEntry) {
	d := &e.nsight
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, en := range held {
		en.read = true
		d.lru.MoveToFront(en.elem)
	}
	e.detailTrimLocked()
}

func (e *Engine) detailTrimLocked() {
	d := &e.nsight
	for el := d.lru.Back(); el != nil && d.bytes > d.maxBytes; {
		prev := el.Prev()
		if en := el.Value.(*detailEntry); en.read {
			d.lru.Remove(el)
			delete(d.entries, en.id)
			d.bytes -= en.bytes
		}
		el = prev
	}
}

// DetailCacheStatus is the "detail_cache" answer (detailDataStatus() in
// the page).
type DetailCacheStatus struct {
	CachedChunks    int   `json:"cachedChunks"`
	DecodedBytes    int64 `json:"decodedBytes"`
	MaxDecodedBytes int64 `json:"maxDecodedBytes"`
}

func (e *Engine) detailCacheOp(a Args) (DetailCacheStatus, error) {
	d := &e.nsight
	d.mu.Lock()
	defer d.mu.Unlock()
	e.detailIndexLocked()
	if a.MaxBytes != nil {
		d.maxBytes = *a.MaxBytes
		e.detailTrimLocked()
	}
	return DetailCacheStatus{CachedChunks: len(d.entries), DecodedBytes: d.bytes, MaxDecodedBytes: d.maxBytes}, nil
}

// profileDetails lays out the detail shards of profiles a build still
// holds the ranges of (no report wrote them), as the report writer would,
// named by the hash of their bytes; it returns d with the descriptors set.
func profileDetails(d *model.Dataset) (*model.Dataset, map[string][]byte, error) {
	if len(d.Profiles) == 0 {
		return d, nil, nil
	}
	out := *d
	out.Profiles = slices.Clone(d.Profiles)
	details := map[string][]byte{}
	for i := range out.Profiles {
		p := &out.Profiles[i]
		if p.Chunks != nil || p.CPUShard != nil {
			continue
		}
		chunks, err := catalog.ProfileChunks(p, d.Meta.OriginNS)
		if err != nil {
			return nil, nil, err
		}
		p.Chunks = make([]model.ProfileChunk, len(chunks))
		for k, c := range chunks {
			id := shard.ID(c.Raw)
			details[id] = c.Raw
			p.Chunks[k] = model.ProfileChunk{Shard: model.Shard{ID: id, Bytes: len(c.Raw), DecodedBytes: len(c.Raw)}, Rows: c.Rows, MinStartNS: c.MinStartNS, MaxStartNS: c.MaxStartNS, MaxEndNS: c.MaxEnd}
		}
		raw, err := catalog.CPUPayload(p, d.Meta.OriginNS)
		if err != nil {
			return nil, nil, err
		}
		if raw != nil {
			id := shard.ID(raw)
			details[id] = raw
			p.CPUShard = &model.Shard{ID: id, Bytes: len(raw), DecodedBytes: len(raw)}
		}
	}
	return &out, details, nil
}

// heldBytes is the memory of a decoded detail shard's columns.
func heldBytes(en *detailEntry) int64 {
	var n int
	if c := en.nvtx; c != nil {
		n += int(c.HeldBytes())
	}
	if c := en.cpu; c != nil {
		n += 8 * (len(c.Time) + len(c.GlobalTID) + len(c.Stack) + len(c.ID))
		for _, st := range c.Stacks {
			n += 24 + 8*len(st)
		}
		for _, sym := range c.Symbols {
			n += 16 + len(sym)
		}
	}
	return int64(n)
}
