package report

import (
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
)

// File names inside a report directory.
const (
	IndexFile    = "index.html"
	ManifestFile = "manifest.json"
	DetailDir    = "detail"
	Generator    = "dsight"
	// FormatVersion changes when a reader of another report layout could
	// misread or fail on this one. 2: metric series are columns, not JSON
	// records. 3: server evidence chunks carry typed evidence only (client
	// evidence by path and line), and spans no request owns are stored as
	// evidence chunks, not rendered JSON. 4: payload scripts are UTF-16LE
	// in base 32768 (shard.Envelope16), which a page of format 3 cannot
	// decode. 5: the server evidence is several independent evidence
	// shards (EvidenceEntry.Shards), each placing its chunks itself, and
	// neighbouring Nsight range chunks share one pack script
	// (shard.Pack16), which a reader of format 4 would refuse as damaged.
	// 6: the core is stored as frames (EncodingFrames), one per table,
	// each compressed and hashed on its own, which a page of format 5
	// would take for one gzip stream. 7: evidence shards of about a
	// quarter MiB share pack scripts (EvidencePackBytes), stored as is,
	// which a reader of format 6 would refuse as an unknown packed
	// encoding. 8: metric summaries share pack scripts (MetricPackBytes),
	// which the core's metric_series_shard_parts marks in its pack column;
	// a reader of format 7 would take a pack's path for the summary's own
	// script and refuse it as damaged. 9: evidence pack scripts hold up to
	// EvidencePackBytes (4 MiB) of shards, and a payload's parts are up to
	// PartBytes (4 MiB), past the 1 MiB a reader of format 8 reads a pack
	// script or a part to. 10: an evidence chunk holds 32 records
	// (catalog.EvidencePerChunk), where a reader of format 9 would number
	// a request's record as one of 64 a chunk.
	FormatVersion = 10
)

// Asset names the writer reads from the assets file system.
const (
	AssetTemplate = "index.html"
	AssetScript   = "app.js"
	AssetStyle    = "app.css"
	AssetEngine   = "engine.wasm"
)

// Manifest is manifest.json.
type Manifest struct {
	Generator     string             `json:"generator"`
	FormatVersion int                `json:"format_version"`
	Schema        string             `json:"schema"`
	Summary       any                `json:"summary"`
	Entry         Entry              `json:"entry"`
	Sources       []query.SourceItem `json:"sources"`
	Unread        []string           `json:"unread"`
	// Links are the run's symbolic links with their resolved targets
	// (docs/format: the source inventory); absent when it has none.
	Links []LinkEntry `json:"links,omitempty"`
	Files []FileEntry `json:"files"`
}

// Entry names the shards the page loads at start.
type Entry struct {
	Engine model.Shard `json:"engine"`
	Core   model.Shard `json:"core"`
	// Evidence holds the server evidence of traced requests; the page
	// draws the timeline from the core before it has loaded.
	Evidence *EvidenceEntry `json:"evidence,omitempty"`
}

// EvidenceEntry describes the server evidence: as a whole (the embedded
// descriptor: the pieces' payloads in order, their parts, their hash) and
// as the independent evidence shards a reader loads one by one (Shards,
// in chunk order; catalog.SplitEvidence).
type EvidenceEntry struct {
	model.Shard
	Shards []EvidencePiece `json:"shards"`
}

// EvidencePiece is one evidence shard of a report: its descriptor and the
// chunks it holds.
type EvidencePiece struct {
	model.Shard
	FirstChunk int `json:"first_chunk"`
	Chunks     int `json:"chunks"`
}

// EncodingIdentity is the model.Shard encoding of a payload stored as is,
// because gzip did not make it meaningfully smaller. A core holding
// pre-deflated lifecycle evidence gains ~1 % from gzip, and the page spent
// 2.4 s inflating the 102 MB core of a 2M-span run for it.
const EncodingIdentity = "identity"

// EncodingFrames is the model.Shard encoding of a framed payload: its
// Frames, each gzip- or identity-encoded, inflated and joined in order are
// the raw shard (docs/format/shard.md, "Framed shards"). The core is
// stored so, and dsight query reads only the frames of the tables a
// question reads.
const EncodingFrames = "frames"

// PartBytes bounds the payload one detail script carries. A browser parses
// several scripts in parallel but one large script alone, so big payloads
// load faster as several parts (measured: 0.6–1.0 s instead of 1.0–2.0 s
// for a 8.6 MB payload); but the page's thread pays for each script it
// loads, so parts are not smaller than that parallelism needs (4 MiB since
// report format 9: the 100k traced run's core in 8 scripts, not 15,
// loaded before the first paint; docs/measurements.md, issue 17).
const PartBytes = 4 << 20

// FileEntry is one generated file with its hash.
type FileEntry struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// LinkEntry is one symbolic link of the run in the manifest: its path, its
// resolved target (run-relative, or absolute when outside is true) and,
// when it was not followed, why.
type LinkEntry struct {
	Path    string `json:"path"`
	Target  string `json:"target,omitempty"`
	Outside bool   `json:"outside,omitempty"`
	Unread  string `json:"unread,omitempty"`
}
