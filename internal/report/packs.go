package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// A page opened from file:// pays one script load (~17 ms) per detail
// script, and the Nsight range chunks are small (2–40 KB of gzip for
// generated profiles): a zoom across a few chunks spent most of its frame
// waiting for scripts. So the chunks of a profile are written in packs
// (shard.Pack16): neighbouring chunks, adjacent in time, share one script
// of up to PackBytes of payload and PackParts chunks. Each chunk stays its
// own shard, named and verified by its own hash; only its one part's path
// names the pack and says so (model.ShardPart.Pack). A chunk larger than
// PackBytes keeps scripts of its own.
const (
	PackBytes = 512 << 10
	PackParts = 64
)

// packFill is the rule that cuts a run of payloads into packs, in order:
// a payload larger than a packed part may be (the smaller of the pack's
// limit and PackBytes) keeps scripts of its own and ends the pack before
// it; the others fill a pack until the next would pass its limit or it
// holds PackParts. The packer and the metric writer (metricwrite.go),
// which plans its packs before it reads them, both place by it.
type packFill struct {
	limit int // the payload a pack holds at most: PackBytes when 0
	n     int // payload bytes in the pack being filled
	parts int // and its parts
}

// place places a payload of size bytes: alone (scripts of its own), or
// packed, and then whether it starts a pack.
func (f *packFill) place(size int) (alone, starts bool) {
	limit := cmp.Or(f.limit, PackBytes)
	if size > min(limit, PackBytes) {
		f.n, f.parts = 0, 0 // packs hold neighbours only
		return true, false
	}
	if starts = f.parts == 0 || f.n+size > limit || f.parts == PackParts; starts {
		f.n, f.parts = 0, 0
	}
	f.n, f.parts = f.n+size, f.parts+1
	return false, starts
}

// packer gathers a profile's compressed chunks (or a traced run's
// evidence shards, addEvidencePieces) into packs, in order.
type packer struct {
	files   *stageFiles
	limit   int // the payload a pack holds at most: PackBytes when 0
	fill    packFill
	ids     []string
	gzs     [][]byte
	members []*model.Shard
}

// add stores chunk gz (decodedBytes long inflated) and returns its shard;
// the shard's part path is set when its pack is written (flush).
func (pk *packer) add(gz []byte, decodedBytes int, sh *model.Shard) {
	*sh = model.Shard{ID: shard.ID(gz), Bytes: len(gz), DecodedBytes: decodedBytes}
	pk.fill.limit = pk.limit
	alone, starts := pk.fill.place(len(gz))
	if alone || starts {
		pk.flush()
	}
	if alone {
		*sh = addCompressedShard(pk.files, gz, decodedBytes)
		return
	}
	pk.ids, pk.gzs = append(pk.ids, sh.ID), append(pk.gzs, gz)
	pk.members = append(pk.members, sh)
}

// flush writes the pack gathered so far, named by the SHA-256 of its
// members' payloads in order.
func (pk *packer) flush() {
	if len(pk.ids) == 0 {
		return
	}
	p, script := packScript(pk.ids, pk.gzs)
	pk.files.put(p, script)
	for _, sh := range pk.members {
		sh.Parts = []model.ShardPart{{ID: sh.ID, Path: p, Bytes: sh.Bytes, Pack: true}}
	}
	pk.ids, pk.gzs, pk.members = nil, nil, nil
}

// packScript is the pack script of payloads gzs, named ids, and its slash
// path: detail/<the SHA-256 of the payloads joined in order>.js. A payload
// two members share (equal summaries or chunks) is written once, where it
// first comes.
func packScript(ids []string, gzs [][]byte) (string, []byte) {
	seen := make(map[string]bool, len(ids))
	var uids []string
	var ugzs [][]byte
	h := sha256.New()
	for k, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		uids, ugzs = append(uids, id), append(ugzs, gzs[k])
		h.Write(gzs[k])
	}
	return path.Join(DetailDir, hex.EncodeToString(h.Sum(nil))+".js"), shard.Pack16(uids, ugzs)
}

// packFile resolves a pack part's path inside the report at dir, refusing
// anything but detail/<64 hex digits>.js.
func packFile(dir string, p model.ShardPart) (string, error) {
	name, ok := strings.CutPrefix(p.Path, DetailDir+"/")
	id, isJS := strings.CutSuffix(name, ".js")
	if !ok || !isJS || len(id) != 64 || strings.Trim(id, "0123456789abcdef") != "" {
		return "", fmt.Errorf("pack path %q is not %s/<sha256>.js inside the report; refusing to read it", p.Path, DetailDir)
	}
	if p.Bytes < 0 || p.Bytes > PackBytes {
		return "", fmt.Errorf("packed part %s declares %d bytes, outside 0..%d", p.ID, p.Bytes, PackBytes)
	}
	return filepath.Join(dir, DetailDir, id+".js"), nil
}

// packReader opens pack scripts once each for a run of reads (a CLI
// question over a broad range reads many chunks of one pack, a metrics
// question many summaries), and decodes and checks only the parts asked
// for. Goroutines may share one (LoadMetricShards reads on several).
type packReader struct {
	dir   string
	mu    sync.Mutex
	packs map[string]*packIndex // by pack path
}

// packIndex is one pack script read: its parts' base 32768 units by id.
type packIndex struct {
	file  string
	units map[string][]byte
	err   error
	ready chan struct{}
}

// part returns the payload of packed part p, checked against its id and
// declared size.
func (r *packReader) part(p model.ShardPart) ([]byte, error) {
	file, err := packFile(r.dir, p)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	pk, ok := r.packs[p.Path]
	if !ok {
		if r.packs == nil {
			r.packs = map[string]*packIndex{}
		}
		pk = &packIndex{file: file, ready: make(chan struct{})}
		r.packs[p.Path] = pk
	}
	r.mu.Unlock()
	if !ok {
		pk.read()
	}
	<-pk.ready
	if pk.err != nil {
		return nil, pk.err
	}
	units, ok := pk.units[p.ID]
	if !ok {
		return nil, fmt.Errorf("%s does not hold part %s; the report files are out of step", p.Path, p.ID)
	}
	gz, err := shard.OpenPackUnits(p.ID, units)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(gz) != p.Bytes {
		return nil, fmt.Errorf("%s holds %d bytes of part %s, manifest declares %d", p.Path, len(gz), p.ID, p.Bytes)
	}
	return gz, nil
}

// read reads and indexes the pack script, once.
func (pk *packIndex) read() {
	defer close(pk.ready)
	script, err := readBounded(pk.file, int64(shard.Pack16MaxLen(PackParts, max(PackBytes, EvidencePackBytes, MetricPackBytes))))
	if err != nil {
		pk.err = err
		return
	}
	ids, units, err := shard.Pack16Units(script)
	if err != nil {
		pk.err = fmt.Errorf("%s: %w", pk.file, err)
		return
	}
	pk.units = make(map[string][]byte, len(ids))
	for k, id := range ids {
		if _, dup := pk.units[id]; !dup { // the page takes the first too
			pk.units[id] = units[k]
		}
	}
}

// readPackedShard reads a shard whose one part is packed: the payload is
// that part, so its hash is the shard's.
func (r *packReader) readPackedShard(sh model.Shard) ([]byte, error) {
	if len(sh.Parts) != 1 || sh.Parts[0].ID != sh.ID {
		return nil, fmt.Errorf("a packed shard has exactly one part named as the shard, not %d", len(sh.Parts))
	}
	gz, err := r.part(sh.Parts[0])
	if err != nil {
		return nil, err
	}
	raw := gz // an evidence shard is stored as is
	switch sh.Encoding {
	case "":
		if raw, err = shard.Decompress(gz); err != nil {
			return nil, err
		}
	case EncodingIdentity:
	default:
		return nil, fmt.Errorf("unknown packed shard encoding %q", sh.Encoding)
	}
	if len(raw) != sh.DecodedBytes {
		return nil, fmt.Errorf("decoded %d bytes, manifest expects %d", len(raw), sh.DecodedBytes)
	}
	return raw, nil
}

// isPacked says whether a shard's payload is a packed part.
func isPacked(sh model.Shard) bool { return len(sh.Parts) > 0 && sh.Parts[0].Pack }
