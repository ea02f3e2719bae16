package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

// Neighbouring chunks share a pack until PackBytes or PackParts; a chunk
// larger than a pack keeps scripts of its own.
func TestPackerSplitsByBytesAndParts(t *testing.T) {
	files := &stageFiles{mem: map[string][]byte{}}
	pk := &packer{files: files}
	sizes := []int{PackBytes * 2 / 5, PackBytes * 2 / 5, PackBytes * 2 / 5, PackBytes + 1, 10}
	for range PackParts + 1 {
		sizes = append(sizes, 3)
	}
	shards := make([]model.Shard, len(sizes))
	for k, n := range sizes {
		gz := bytes.Repeat([]byte{byte(k), byte(k >> 8)}, n/2+1)[:n]
		pk.add(gz, 2*n, &shards[k])
	}
	pk.flush()
	paths := []string{}
	for k, sh := range shards {
		if sh.ID != shard.ID(stagedPayload(t, files, sh)) || sh.DecodedBytes != 2*sizes[k] {
			t.Fatalf("chunk %d: %+v", k, sh)
		}
		if k == 3 {
			if sh.Parts[0].Pack || len(sh.Parts) != 1 {
				t.Errorf("the chunk larger than a pack is packed: %+v", sh.Parts)
			}
			continue
		}
		if len(sh.Parts) != 1 || !sh.Parts[0].Pack || sh.Parts[0].ID != sh.ID {
			t.Fatalf("chunk %d parts %+v", k, sh.Parts)
		}
		if len(paths) == 0 || paths[len(paths)-1] != sh.Parts[0].Path {
			paths = append(paths, sh.Parts[0].Path)
		}
	}
	// [0 1] [2] | big | [4 + 255 small] [1 small]
	if len(paths) != 4 || shards[0].Parts[0].Path != shards[1].Parts[0].Path || shards[2].Parts[0].Path == shards[1].Parts[0].Path {
		t.Errorf("packs %v", paths)
	}
	if shards[4].Parts[0].Path != shards[4+PackParts-1].Parts[0].Path || shards[4+PackParts].Parts[0].Path == shards[4].Parts[0].Path {
		t.Error("a pack holds more than PackParts chunks")
	}
}

// stagedPayload reads a shard's gzip payload back from staged files.
func stagedPayload(t *testing.T, files *stageFiles, sh model.Shard) []byte {
	var out []byte
	for _, p := range sh.Parts {
		var gz []byte
		var err error
		if p.Pack {
			gz, err = shard.OpenPackPart(files.mem[p.Path], p.ID)
		} else {
			_, gz, err = shard.OpenPart(files.mem[p.Path])
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, gz...)
	}
	return out
}

// A report's Nsight chunks are packed, and the CLI's detail loads read
// them: the nsys totals are those of the dataset.
func TestPackedProfileAnswersAsTheDataset(t *testing.T) {
	d := dataset("job")
	n := 5*catalog.ProfileChunkRows + 17
	p := model.Profile{ID: 0, Source: 0, File: "nsys/h_frontend_0.sqlite", Mapped: true, Worker: "frontend", EpochNS: d.Meta.OriginNS, Capture: [2]int64{0, 9e9},
		Names: []string{"preprocess.tokenize"}, Definitions: []model.NVTXDefinition{{Category: model.NVTXFrontend}}, Limit: int64(n), Threads: []model.ProfileThread{{GlobalTID: 1<<60 | 5}}}
	for k := range n {
		p.Ranges = append(p.Ranges, model.NVTXRange{StartNS: int64(k) * 100_000, EndNS: int64(k)*100_000 + 50_000, GlobalTID: 1<<60 | 5, RowID: int64(k + 1)})
	}
	p.Counts = model.ProfileCounts{Rows: int64(n), Scanned: int64(n), Selected: int64(n), Kept: int64(n)}
	d.Profiles = []model.Profile{p}
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(d, assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	core, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	chunks := core.Profiles[0].Chunks
	if len(chunks) != 6 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for _, c := range chunks {
		if len(c.Parts) != 1 || !c.Parts[0].Pack || c.Parts[0].Path != chunks[0].Parts[0].Path {
			t.Fatalf("chunk parts %+v, want one pack for all", c.Parts)
		}
	}
	eng, err := query.New(core)
	if err != nil {
		t.Fatal(err)
	}
	req := []byte(`{"op":"nsys","args":{"name":"pre","limit":3}}`)
	for round := 0; ; round++ {
		var env struct {
			Result struct {
				Total int `json:"total"`
			} `json:"result"`
			OK     bool              `json:"ok"`
			Code   query.Code        `json:"code"`
			Error  string            `json:"error"`
			Shards []query.ShardNeed `json:"shards"`
		}
		if err := json.Unmarshal(eng.Handle(req), &env); err != nil {
			t.Fatal(err)
		}
		if env.OK {
			if env.Result.Total != n {
				t.Fatalf("total %d, want %d", env.Result.Total, n)
			}
			break
		}
		if round > 0 || env.Code != query.CodeShardsNeeded {
			t.Fatalf("round %d: %s %s", round, env.Code, env.Error)
		}
		if err := LoadDetailShards(eng, dir, env.Shards); err != nil {
			t.Fatal(err)
		}
	}
	// A pack that lost a member is refused with the part named.
	pack := filepath.Join(dir, filepath.FromSlash(chunks[0].Parts[0].Path))
	ids, gzs, err := shard.OpenPack16(mustRead(t, pack))
	if err != nil || len(ids) != 6 {
		t.Fatalf("pack: %d parts, %v", len(ids), err)
	}
	if err := os.WriteFile(pack, shard.Pack16(ids[1:], gzs[1:]), 0o644); err != nil {
		t.Fatal(err)
	}
	need := query.ShardNeed{ID: chunks[0].ID, Bytes: chunks[0].Bytes, DecodedBytes: chunks[0].DecodedBytes, Parts: []query.ShardPartRecord{{ID: chunks[0].ID, Path: chunks[0].Parts[0].Path, Bytes: chunks[0].Bytes, Pack: true}}}
	if err := LoadDetailShards(eng, dir, []query.ShardNeed{need}); err == nil || !bytes.Contains([]byte(err.Error()), []byte(fmt.Sprintf("does not hold part %s", chunks[0].ID))) {
		t.Errorf("a pack missing its part: %v", err)
	}
	// A pack path outside detail/<sha256>.js is never read.
	need.Parts[0].Path = "detail/../manifest.json"
	if err := LoadDetailShards(eng, dir, []query.ShardNeed{need}); err == nil {
		t.Error("a pack path outside detail/ was read")
	}
}

func mustRead(t *testing.T, file string) []byte {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
