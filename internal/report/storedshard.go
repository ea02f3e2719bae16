package report

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"os"
	"path"
	"path/filepath"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// addStoredShard is addShard for a payload the page reads at start: when
// gzip saves less than an eighth of it, it is stored as is, and the page
// skips inflating it. The choice depends only on the bytes, so identical
// inputs still give identical reports.
//
// The gzip output goes to its parts as it is written, never into a buffer
// of its own: a traced core (134 MB at 100,000 requests) holds deflated
// evidence gzip cannot shrink, and a whole compressed copy only to be
// dropped doubled the writer's peak. Once the output reaches the bound the
// payload is stored as is; the parts written so far are taken back.
func addStoredShard(files *stageFiles, raw []byte) (model.Shard, error) {
	limit := len(raw) - len(raw)/8 // gzip is kept only when shorter
	pw := &partWriter{files: files, limit: limit, whole: sha256.New(), decoded: len(raw)}
	// shard.Compress's writer, into the parts instead of one buffer: the
	// bytes must be its bytes (TestStoredShardStreamsCompressBytes).
	zw, err := shard.CompressTo(pw)
	if err != nil {
		return model.Shard{}, err
	}
	// One Write, as shard.Compress: the bytes may depend on the split.
	if _, err = zw.Write(raw); err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = pw.flush()
	}
	switch {
	case err == nil && pw.n < limit:
		return pw.shard(), nil
	case err != nil && !errors.Is(err, errNotSmaller):
		pw.takeBack()
		return model.Shard{}, err
	}
	pw.takeBack()
	sh := addCompressedShard(files, raw, len(raw))
	sh.Encoding = EncodingIdentity
	return sh, nil
}

// errNotSmaller stops the compression once its output is too long to keep.
var errNotSmaller = errors.New("gzip output not meaningfully smaller")

// partWriter cuts a compressed payload into its detail scripts as it is
// written: PartBytes at a time, each named by its hash, the whole payload
// hashed on the way.
type partWriter struct {
	files   *stageFiles
	limit   int
	whole   hash.Hash
	decoded int
	buf     []byte
	n       int // payload bytes written
	parts   []model.ShardPart
	// added are the files this payload staged that were not staged before
	// (a part may equal another shard's), the ones takeBack removes.
	added []string
}

func (w *partWriter) Write(p []byte) (int, error) {
	written := len(p)
	if w.n+written >= w.limit {
		return 0, errNotSmaller
	}
	w.n += written
	w.whole.Write(p)
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = make([]byte, 0, PartBytes)
		}
		k := min(len(p), PartBytes-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == PartBytes {
			if err := w.flush(); err != nil {
				return 0, err
			}
		}
	}
	return written, nil
}

// flush stages the bytes held as the next part.
func (w *partWriter) flush() error {
	if len(w.buf) == 0 {
		return w.files.err
	}
	id := shard.ID(w.buf)
	p := path.Join(DetailDir, id+".js")
	if !w.files.staged(p) {
		w.added = append(w.added, p)
	}
	w.files.put(p, shard.Envelope16(id, w.buf))
	w.parts = append(w.parts, model.ShardPart{ID: id, Path: p, Bytes: len(w.buf)})
	w.buf = w.buf[:0]
	return w.files.err
}

func (w *partWriter) shard() model.Shard {
	return model.Shard{ID: hex.EncodeToString(w.whole.Sum(nil)), Bytes: w.n, DecodedBytes: w.decoded, Parts: w.parts}
}

// takeBack removes the parts this payload staged, files and entries.
func (w *partWriter) takeBack() {
	mine := map[string]bool{}
	for _, p := range w.added {
		mine[p] = true
		if w.files.mem != nil {
			delete(w.files.mem, p)
		} else if w.files.err == nil {
			if err := os.Remove(filepath.Join(w.files.dir, filepath.FromSlash(p))); err != nil {
				w.files.err = err
			}
		}
	}
	kept := w.files.entries[:0]
	for _, e := range w.files.entries {
		if !mine[e.Path] {
			kept = append(kept, e)
		}
	}
	w.files.entries = kept
}

// staged says whether a file of that name is staged already.
func (f *stageFiles) staged(name string) bool {
	for _, e := range f.entries {
		if e.Path == name {
			return true
		}
	}
	return false
}
