package query

import "fmt"

// A host that holds the report's evidence shards but has not handed them
// over yet (the page, which opens its API once every evidence script has
// run and gives the shards afterwards, web/src/evidenceload.js) lets the
// engine ask for them: before answering that a request's evidence is
// pending, the engine asks for the chunks it needs, and the host gives the
// shards holding them (Give) before it returns. A host without the bytes
// yet gives nothing, and the answer is pending as before.

// SetEvidenceSource sets want, which the engine calls with the evidence
// chunks an answer needs and the engine does not hold, outside its locks
// (want may call Give). An error from want (a shard the host holds but
// found damaged) fails the answer that needed it.
func (e *Engine) SetEvidenceSource(want func(chunks []int) error) { e.wantEvidence = want }

// fetchChunks asks the host for chunks, when it can be asked.
func (e *Engine) fetchChunks(chunks []int) error {
	if e.wantEvidence == nil || len(chunks) == 0 {
		return nil
	}
	if err := e.wantEvidence(chunks); err != nil {
		return fmt.Errorf("server evidence: %w", err)
	}
	return nil
}

// holdsChunk says whether evidence chunk k is attached, asking the host
// for it first when it is not.
func (e *Engine) holdsChunk(k int) (bool, error) {
	e.chunkMu.Lock()
	held := e.c.HasChunk(k)
	e.chunkMu.Unlock()
	if held || e.wantEvidence == nil {
		return held, nil
	}
	if err := e.fetchChunks([]int{k}); err != nil {
		return false, err
	}
	e.chunkMu.Lock()
	defer e.chunkMu.Unlock()
	return e.c.HasChunk(k), nil
}

// holdsAllEvidence says whether every evidence chunk is attached, asking
// the host for the missing ones first when some are.
func (e *Engine) holdsAllEvidence() (bool, error) {
	e.chunkMu.Lock()
	var missing []int
	if e.wantEvidence != nil {
		missing = e.c.MissingChunks()
	}
	whole := e.c.HasEvidence()
	e.chunkMu.Unlock()
	if whole || len(missing) == 0 {
		return whole, nil
	}
	if err := e.fetchChunks(missing); err != nil {
		return false, err
	}
	e.chunkMu.Lock()
	defer e.chunkMu.Unlock()
	return e.c.HasEvidence(), nil
}
