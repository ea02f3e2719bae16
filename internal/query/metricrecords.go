package query

import "github.com/dsight/dsight/internal/model"

// The shapes of metric metadata in answers. The catalog holds plain
// internal/model values; these say how every surface shows them.

// MetricFamilyRecord is one catalogued metric family.
type MetricFamilyRecord struct {
	Name            string   `json:"name"`
	Component       string   `json:"component"`
	Group           string   `json:"group"`
	GroupOrder      int      `json:"group_order"`
	Title           string   `json:"title"`
	Unit            string   `json:"unit"`
	RateUnit        string   `json:"rate_unit"`
	Counter         bool     `json:"counter"`
	Description     string   `json:"description"`
	Quality         string   `json:"quality"`
	Featured        bool     `json:"featured"`
	Order           int      `json:"order"`
	ValueKind       string   `json:"value_kind"`
	ObservationUnit string   `json:"observation_unit,omitempty"`
	SeriesCount     int      `json:"series_count"`
	Samples         int64    `json:"samples"`
	Endpoints       []string `json:"endpoints"`
	SourceKind      string   `json:"source_kind,omitempty"`
	Generator       string   `json:"generator,omitempty"`
	Temporal        string   `json:"temporal,omitempty"`
	// Derived is true for families computed at build time (the session
	// metrics); absent for recorded ones.
	Derived bool `json:"derived,omitempty"`
	// StackBy lists the label keys whose series the charts draw as stacked
	// bands (each counted request in at most one band of a key).
	StackBy []string `json:"stack_by,omitempty"`
	// StackWithin maps a StackBy key to the label key whose values split
	// its series into separate stacks (workers stack within their role).
	StackWithin map[string]string `json:"stack_within,omitempty"`
}

// familyRecord shapes a family; the conversion keeps the two field lists
// equal, or the build fails.
func familyRecord(f *model.MetricFamily) MetricFamilyRecord { return MetricFamilyRecord(*f) }

// MetricLabelRecord is one identity label of a series.
type MetricLabelRecord struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// MetricReferenceRecord pairs an observed series with its limit or pool
// series; SeriesID is null when no series exists in exactly the same scope.
type MetricReferenceRecord struct {
	Name     string `json:"name"`
	Label    string `json:"label"`
	SeriesID *int   `json:"series_id"`
}

// MetricSeriesRecord is the metadata of one metric series.
type MetricSeriesRecord struct {
	ID              int                    `json:"id"`
	Name            string                 `json:"name"`
	Label           string                 `json:"label"`
	Unit            string                 `json:"unit"`
	ValueKind       string                 `json:"value_kind"`
	Component       string                 `json:"component"`
	Group           string                 `json:"group"`
	Description     string                 `json:"description"`
	RawName         string                 `json:"raw_name"`
	Endpoint        string                 `json:"endpoint"`
	Host            *string                `json:"host"`
	GPU             *string                `json:"gpu"`
	Worker          *string                `json:"worker"`
	Rank            *string                `json:"rank"`
	RankKind        *string                `json:"rank_kind"`
	WorkerProcess   *string                `json:"worker_process"`
	Labels          []MetricLabelRecord    `json:"labels"`
	SourceKind      string                 `json:"source_kind,omitempty"`
	Generator       string                 `json:"generator,omitempty"`
	Temporal        string                 `json:"temporal"`
	TimeResolutionS *float64               `json:"time_resolution_s,omitempty"`
	Reference       *MetricReferenceRecord `json:"reference,omitempty"`
	SourceIDs       []int                  `json:"source_ids"`
	// Samples counts finite in-window values; Rows counts the rows the
	// summary holds (gaps and a setting carried from before the window
	// included).
	Samples int64 `json:"samples"`
	Rows    int64 `json:"rows"`
	// Derived is true for series computed at build time; absent otherwise.
	Derived bool `json:"derived,omitempty"`
}

func seriesRecord(m *model.MetricSeries) MetricSeriesRecord {
	r := MetricSeriesRecord{
		ID: m.ID, Name: m.Name, Label: m.Label, Unit: m.Unit, ValueKind: m.ValueKind, Component: m.Component,
		Group: m.Group, Description: m.Description, RawName: m.RawName, Endpoint: m.Endpoint,
		Host: m.Host, GPU: m.GPU, Worker: m.Worker, Rank: m.Rank, RankKind: m.RankKind, WorkerProcess: m.WorkerProcess,
		SourceKind: m.SourceKind, Generator: m.Generator, Temporal: m.Temporal, TimeResolutionS: m.TimeResolutionS,
		SourceIDs: m.SourceIDs, Samples: m.Samples, Rows: m.Rows, Derived: m.Derived,
	}
	if m.Labels != nil {
		r.Labels = make([]MetricLabelRecord, len(m.Labels))
		for k, l := range m.Labels {
			r.Labels[k] = MetricLabelRecord{Key: l.Key, Value: l.Value}
		}
	}
	if ref := m.Reference; ref != nil {
		r.Reference = &MetricReferenceRecord{Name: ref.Name, Label: ref.Label, SeriesID: ref.SeriesID}
	}
	return r
}

// MetricShardRecord locates a series' summary in the report: its detail
// shard and the bounds of the rows it holds.
type MetricShardRecord struct {
	ID           string            `json:"id"`
	Bytes        int               `json:"bytes"`
	DecodedBytes int               `json:"decoded_bytes"`
	Parts        []ShardPartRecord `json:"parts"`
	Encoding     string            `json:"encoding,omitempty"`
	Chunks       int               `json:"chunks"`
	FirstNS      int64             `json:"first_ns"`
	LastNS       int64             `json:"last_ns"`
}

// ShardPartRecord is one detail script of a shard.
type ShardPartRecord struct {
	ID    string `json:"id"`
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	Pack  bool   `json:"pack,omitempty"` // the script is a pack of several parts
}

func metricShardRecord(s *model.MetricShard) *MetricShardRecord {
	if s == nil {
		return nil
	}
	return &MetricShardRecord{
		ID: s.ID, Bytes: s.Bytes, DecodedBytes: s.DecodedBytes, Parts: shardParts(s.Parts), Encoding: s.Encoding,
		Chunks: s.Chunks, FirstNS: s.FirstNS, LastNS: s.LastNS,
	}
}

func shardParts(parts []model.ShardPart) []ShardPartRecord {
	if parts == nil {
		return nil
	}
	out := make([]ShardPartRecord, len(parts))
	for k, p := range parts {
		out[k] = ShardPartRecord{ID: p.ID, Path: p.Path, Bytes: p.Bytes, Pack: p.Pack}
	}
	return out
}
