package report

import "github.com/dsight/dsight/internal/query"

// File names inside a report directory.
const (
	IndexFile    = "index.html"
	ManifestFile = "manifest.json"
	DetailDir    = "detail"
	Generator    = "dsight"
	// FormatVersion changes when a reader of an older report layout could misread this one.
	FormatVersion = 1
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
	Files         []FileEntry        `json:"files"`
}

// Entry names the shards the page loads at start.
type Entry struct {
	Engine Shard `json:"engine"`
	Core   Shard `json:"core"`
}

// Shard describes one detail file.
type Shard struct {
	ID           string `json:"id"` // sha256 of the gzip payload
	Path         string `json:"path"`
	Bytes        int    `json:"bytes"`         // gzip payload bytes
	DecodedBytes int    `json:"decoded_bytes"` // after gunzip
}

// FileEntry is one generated file with its hash.
type FileEntry struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}
