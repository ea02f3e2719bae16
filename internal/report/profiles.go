package report

import (
	"fmt"
	"runtime"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
)

// addProfileShards writes each profile's ranges as detail shards of
// catalog.ProfileChunkRows rows and its CPU samples as one more, each named
// by content, and returns a shallow copy of d whose profiles carry the
// descriptors. The core then holds a profile's record and density only.
func addProfileShards(files *stageFiles, d *model.Dataset) (*model.Dataset, error) {
	if len(d.Profiles) == 0 {
		return d, nil
	}
	out := *d
	out.Profiles = make([]model.Profile, len(d.Profiles))
	for i := range d.Profiles {
		p := d.Profiles[i]
		// The chunks are laid out and compressed on every core, and packed
		// here in chunk order: neighbouring chunks share a script (packs.go).
		p.Chunks = make([]model.ProfileChunk, (len(p.Ranges)+catalog.ProfileChunkRows-1)/catalog.ProfileChunkRows)
		pk := &packer{files: files}
		err := catalog.CompressProfileChunks(&p, d.Meta.OriginNS, runtime.GOMAXPROCS(0), func(k int, c catalog.CompressedChunk) error {
			p.Chunks[k] = model.ProfileChunk{Rows: c.Rows, MinStartNS: c.MinStartNS, MaxStartNS: c.MaxStartNS, MaxEndNS: c.MaxEnd}
			pk.add(c.Gz, c.RawBytes, &p.Chunks[k].Shard)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.File, err)
		}
		pk.flush()
		raw, err := catalog.CPUPayload(&p, d.Meta.OriginNS)
		if err != nil {
			return nil, fmt.Errorf("profile %s CPU samples: %w", p.File, err)
		}
		if raw != nil {
			sh, err := addShard(files, raw)
			if err != nil {
				return nil, fmt.Errorf("profile %s CPU samples: %w", p.File, err)
			}
			p.CPUShard = &sh
		}
		out.Profiles[i] = p
	}
	return &out, nil
}

// LoadDetailShards reads the detail shards an engine named in a
// shards_needed answer from the report at dir and hands them over, as the
// page does with its detail scripts.
func LoadDetailShards(eng *query.Engine, dir string, needs []query.ShardNeed) error {
	packs := &packReader{dir: dir}
	for _, need := range needs {
		parts := make([]model.ShardPart, len(need.Parts))
		for k, p := range need.Parts {
			parts[k] = model.ShardPart{ID: p.ID, Path: p.Path, Bytes: p.Bytes, Pack: p.Pack}
		}
		sh := model.Shard{ID: need.ID, Bytes: need.Bytes, Parts: parts, DecodedBytes: need.DecodedBytes}
		var raw []byte
		var err error
		if isPacked(sh) {
			raw, err = packs.readPackedShard(sh)
		} else {
			raw, err = readShard(dir, sh)
		}
		if err != nil {
			return fmt.Errorf("detail shard %s: %w", need.ID, err)
		}
		if err := eng.Give(need.ID, raw); err != nil {
			return err
		}
	}
	return nil
}
