package query

// The page's idle prefetch hands the engine detail shards no answer has
// asked for yet, so that a later zoom finds them decoded. Such a shard is
// spare: it counts in the cache's budget like any other but goes first
// when room is needed, before every shard an answer has read, and never
// pins memory as an unread shard would.

// detailSpare marks the held detail shard a.ID spare: read, and last in
// the least recently used order. An answer that reads it later makes it an
// ordinary entry again.
func (e *Engine) detailSpare(a Args) (DetailCacheStatus, error) {
	d := &e.nsight
	d.mu.Lock()
	defer d.mu.Unlock()
	e.detailIndexLocked()
	if a.ID == "" {
		return DetailCacheStatus{}, badArgs("detail_spare needs the id of a detail shard")
	}
	en, ok := d.entries[a.ID]
	if !ok {
		return DetailCacheStatus{}, notFound("the engine holds no detail shard %s", a.ID)
	}
	en.read = true
	d.lru.MoveToBack(en.elem)
	e.detailTrimLocked()
	return DetailCacheStatus{CachedChunks: len(d.entries), DecodedBytes: d.bytes, MaxDecodedBytes: d.maxBytes}, nil
}
