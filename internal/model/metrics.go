package model

// MetricFamily is one catalogued metric family: presentation metadata plus
// how much of it the run holds. Every captured family is listed, even one
// with no sample inside the window.
type MetricFamily struct {
	Name            string
	Component       string
	Group           string
	GroupOrder      int
	Title           string
	Unit            string
	RateUnit        string
	Counter         bool
	Description     string
	Quality         string
	Featured        bool
	Order           int
	ValueKind       string
	ObservationUnit string
	SeriesCount     int
	Samples         int64
	Endpoints       []string
	// SourceKind is "worker_log" for log-derived families, "" for captures.
	SourceKind string
	Generator  string
	Temporal   string
	// Derived is true for families computed at build time from other
	// evidence (the session metrics, from the client requests), never
	// recorded as such by any source; SourceKind is then SourceDerived.
	Derived bool
	// StackBy lists the label keys whose series stack as bands: each
	// request (or unit counted) is in at most one series of such a key, so
	// the bands add up to at most the family's total series, never more.
	// Only derived families set it.
	StackBy []string
	// StackWithin maps a StackBy key to the label key that splits its
	// series into separate stacks, one per value: the series of one value
	// stack, those of different values do not (workers stack within their
	// role, a request being served by one prefill and one decode worker).
	StackWithin map[string]string
}

// SourceDerived is the SourceKind of derived families and series.
const SourceDerived = "derived"

// MetricLabel is one identity label of a series.
type MetricLabel struct {
	Key   string
	Value string
}

// MetricReference pairs an observed series with its limit or pool series;
// SeriesID is nil when no series exists in exactly the same scope.
type MetricReference struct {
	Name     string
	Label    string
	SeriesID *int
}

// MetricSeries is the metadata of one metric series. Its samples live in a
// separate multi-resolution summary (Summary at build time, a detail shard
// in a report), so the core stays small whatever the capture size.
type MetricSeries struct {
	ID              int
	Name            string
	Label           string
	Unit            string
	ValueKind       string
	Component       string
	Group           string
	Description     string
	RawName         string
	Endpoint        string
	Host            *string
	GPU             *string
	Worker          *string
	Rank            *string
	RankKind        *string
	WorkerProcess   *string
	Labels          []MetricLabel
	SourceKind      string
	Generator       string
	Temporal        string
	TimeResolutionS *float64
	Reference       *MetricReference
	SourceIDs       []int
	// Samples counts finite in-window values; Rows counts the rows the
	// summary holds (gaps and a setting carried from before the window
	// included).
	Samples int64
	Rows    int64
	// Derived marks a series computed at build time (SourceKind is
	// SourceDerived); a report carries it as that source kind.
	Derived bool

	// Summary is the series' encoded summary while a build holds it; set
	// by the importer, consumed by the report writer.
	Summary *MetricSummary
	// Shard locates that summary in a report; set by the report writer
	// (and read back from a report's core).
	Shard *MetricShard
}

// MetricSummary is one series' encoded internal/shard summary payload,
// gzip-compressed as a report stores it. The importer keeps the payload in
// a temporary file, not in memory: a 100M-sample capture's summaries are
// ~50 MB compressed, ~700 MB not.
type MetricSummary struct {
	Payload      Blob
	DecodedBytes int
	MetricBounds
}

// MetricBounds is what a reader needs to pick a series' summary by time
// without loading it: its chunk count and the time bounds (relative ns) of
// the rows it holds.
type MetricBounds struct {
	Chunks  int   `json:"chunks"`
	FirstNS int64 `json:"first_ns"`
	LastNS  int64 `json:"last_ns"`
}

// MetricShard locates one series' summary in a report: the detail shard
// that holds it and the bounds of its rows.
type MetricShard struct {
	Shard
	MetricBounds
}

// Shard describes one payload of a report, stored as one or more detail
// scripts: the page's engine and core, the evidence and each metric
// series' summary.
type Shard struct {
	ID           string      `json:"id"`            // sha256 of the whole payload
	Bytes        int         `json:"bytes"`         // payload bytes
	DecodedBytes int         `json:"decoded_bytes"` // after gunzip
	Parts        []ShardPart `json:"parts"`         // concatenated in order, they are the payload
	// Encoding is "" for a gzip payload; the report writer names the
	// others.
	Encoding string `json:"encoding,omitempty"`
	// Frames, for the "frames" encoding, cut the payload into independently
	// stored pieces of the raw shard, in order (docs/format/shard.md).
	Frames []ShardFrame `json:"frames,omitempty"`
}

// ShardFrame is one frame of a framed shard's payload: one table of the
// raw shard (Table), or its head or trailer (Table empty), stored gzip- or
// identity-encoded on its own and named by the SHA-256 of its stored bytes.
type ShardFrame struct {
	Table        string `json:"table,omitempty"`
	ID           string `json:"id"`
	Bytes        int    `json:"bytes"`
	DecodedBytes int    `json:"decoded_bytes"`
	Encoding     string `json:"encoding,omitempty"`
}

// ShardPart is one detail script holding a slice of a shard's payload.
type ShardPart struct {
	ID    string `json:"id"` // sha256 of this slice, also its file name
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	// Pack says the script at Path is a pack (shard.Pack16) holding this
	// part among its neighbours' (docs/format/shard.md).
	Pack bool `json:"pack,omitempty"`
}

// Blob is a payload a build holds until the report writer copies it, so
// that it need not sit in memory meanwhile.
type Blob interface {
	Len() int
	Bytes() ([]byte, error)
}

// InMemory is a Blob held as bytes.
type InMemory []byte

func (b InMemory) Len() int               { return len(b) }
func (b InMemory) Bytes() ([]byte, error) { return b, nil }
