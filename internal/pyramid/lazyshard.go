package pyramid

// A question about a range reads a few of a summary's chunks: a 5 s window
// of a 200,000-row in-flight series reads 7 of its 32. Decoding the whole
// shard to answer it was a third of a `dsight query metrics` at 100,000
// requests (each of nine series' 0.6–2.8 MB decoded, its columns allocated
// and zeroed, for a few chunks read). A LazyShard decodes a chunk's table
// only when a question needs it, from the raw shard cut at its tables
// (OpenShardLazy) or from a reader inflating each table of a segmented
// summary alone (OpenShardFrames).

// LazyShard reads a ShardKind shard's chunks on demand: table(k) gives
// the raw bytes of the shard's table k in the order AppendShard writes
// them (0 the header, 1 the index, 2+id chunk id). It is safe for
// concurrent use when table is.
type LazyShard struct {
	table func(k int) ([]byte, error)
	// shardBytes is the whole raw shard's size, whose memory budget
	// (shard.DecodeBudget) every table read of it decodes under.
	shardBytes int
}

// Unloaded lists the ids of p's chunks not loaded.
func (p *Pyramid) Unloaded() []int {
	var out []int
	for id := range p.chunks {
		if !p.Loaded(id) {
			out = append(out, id)
		}
	}
	return out
}
