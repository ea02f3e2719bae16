package report

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

// A large metric summary is stored as a segmented gzip member
// (shard.CompressSummary; docs/format/shard.md): one gzip stream, which
// the page inflates whole as before, whose frames also inflate alone. A
// question reads its payload whole and checks its SHA-256 as before, but
// inflates only the head now and each table when the engine first reads
// it (Engine.LoadShardFrames): inflating every series' summary whole was
// most of a `dsight query metrics` of nine series at 100,000 requests,
// where a 5 s window reads 15 % of each.

// inflateSegment is shard.InflateSegment, counted by tests.
var inflateSegment = shard.InflateSegment

// metricSummary is a metric shard read for the engine: raw, the whole
// decoded shard, or a segmented payload with its head inflated.
type metricSummary struct {
	raw  []byte
	gz   []byte
	segs []shard.Segment
	head []byte
	size int
}

// readMetricSummary reads series m's summary from the report at dir, a
// packed one through packs (shared by the reads of one question).
func readMetricSummary(dir string, packs *packReader, m *model.MetricSeries) (metricSummary, error) {
	if m.Shard == nil {
		return metricSummary{}, fmt.Errorf("metric series %d has no shard", m.ID)
	}
	sh := m.Shard.Shard
	if sh.Encoding != "" {
		raw, err := ReadMetricShard(dir, m)
		return metricSummary{raw: raw}, err
	}
	var gz []byte
	var err error
	if isPacked(sh) {
		// The part's id is the shard's, checked as the part is decoded.
		if len(sh.Parts) != 1 || sh.Parts[0].ID != sh.ID || sh.Parts[0].Bytes != sh.Bytes {
			err = fmt.Errorf("a packed shard has exactly one part named and sized as the shard, not %d", len(sh.Parts))
		} else {
			gz, err = packs.part(sh.Parts[0])
		}
	} else {
		gz, err = readPayload(dir, sh)
	}
	if err == nil {
		var s metricSummary
		if s, err = segmented(gz, sh); err == nil {
			return s, nil
		}
	}
	return metricSummary{}, fmt.Errorf("metric shard %s: %w", sh.ID, err)
}

// segmented is a gzip shard's checked payload with its head inflated when
// it is segmented, else inflated whole.
func segmented(gz []byte, sh model.Shard) (metricSummary, error) {
	segs, ok, err := shard.Segments(gz)
	if err != nil {
		return metricSummary{}, err
	}
	if !ok {
		raw, err := shard.Decompress(gz)
		if err == nil && len(raw) != sh.DecodedBytes {
			err = fmt.Errorf("decoded %d bytes, manifest expects %d", len(raw), sh.DecodedBytes)
		}
		return metricSummary{raw: raw}, err
	}
	size := 0
	for _, s := range segs {
		size += s.Raw
	}
	if size != sh.DecodedBytes || len(segs) < 4 { // head, header, index, trailer
		return metricSummary{}, fmt.Errorf("%d segments of %d bytes, manifest expects %d", len(segs), size, sh.DecodedBytes)
	}
	head, err := inflateSegment(gz, segs[0])
	if err != nil {
		return metricSummary{}, err
	}
	return metricSummary{gz: gz, segs: segs, head: head, size: size}, nil
}

// handTo hands the summary to eng as shard id.
func (s metricSummary) handTo(eng *query.Engine, id string) error {
	if s.raw != nil {
		return eng.LoadShard(id, s.raw)
	}
	return eng.LoadShardFrames(id, s.head, func(k int) ([]byte, error) {
		if k < 0 || k+2 >= len(s.segs) { // the head and the trailer are no table
			return nil, fmt.Errorf("no table %d among %d segments", k, len(s.segs))
		}
		return inflateSegment(s.gz, s.segs[k+1])
	}, int64(s.size))
}
