package catalog

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// TableBatch holds the batch observations (iteration records and batch
// snapshots), one row each, in the dataset's order. It lives in the core:
// the page's queryIterations is synchronous, so its rows must be in memory
// when the page is ready. Measured (TestBatchTableSize): ~18 bytes a row
// in the decoded shard, so 100,000 observations add ~1.8 MB to the core.
const TableBatch = "batch_observations"

// Batch is the batch_observations table as columns. Start is relative to
// the origin and null when the observation is unaligned.
type Batch struct {
	N                                int
	Kind, Format, Worker, Host, Role []string
	Rank, LocalRank                  Ints
	RankKind, LocalTime              []string
	FracDigits                       []int64
	Start                            Ints
	BatchKind                        Strings
	Iteration                        Ints
	Ints                             [model.NumBatchInts]Ints
	Floats                           [model.NumBatchFloats]Floats
	EvidencePath                     []string
	EvidenceLine                     []int64
}

func encodeBatch(d *model.Dataset) shard.Table {
	obs, origin := d.BatchObservations, d.Meta.OriginNS
	n := len(obs)
	str := func(name string, get func(*model.BatchObservation) string) shard.Column {
		return strCol(name, n, func(i int) string { return get(&obs[i]) })
	}
	opt := func(name string, get func(*model.BatchObservation) *int64) shard.Column {
		return optIntCol(name, n, func(i int) *int64 { return get(&obs[i]) })
	}
	cols := []shard.Column{
		str("kind", func(o *model.BatchObservation) string { return o.Kind }),
		str("format", func(o *model.BatchObservation) string { return o.Format }),
		str("worker", func(o *model.BatchObservation) string { return o.Worker }),
		str("host", func(o *model.BatchObservation) string { return o.Host }),
		str("role", func(o *model.BatchObservation) string { return o.Role }),
		opt("rank", func(o *model.BatchObservation) *int64 { return o.Rank }),
		str("rank_kind", func(o *model.BatchObservation) string { return o.RankKind }),
		opt("local_rank", func(o *model.BatchObservation) *int64 { return o.LocalRank }),
		str("local_time", func(o *model.BatchObservation) string { return o.LocalTime }),
		intCol("frac_digits", n, func(i int) int64 { return int64(obs[i].FracDigits) }),
		opt("start_ns", func(o *model.BatchObservation) *int64 {
			if o.StartNS == nil {
				return nil
			}
			v := *o.StartNS - origin
			return &v
		}),
		optStrCol("batch_kind", n, func(i int) *string { return obs[i].BatchKind }),
		opt("iteration", func(o *model.BatchObservation) *int64 { return o.Iteration }),
	}
	for k, name := range model.BatchIntNames {
		cols = append(cols, opt(name, func(o *model.BatchObservation) *int64 { return o.Ints[k] }))
	}
	for k, name := range model.BatchFloatNames {
		cols = append(cols, optFloatCol(name, n, func(i int) *float64 { return obs[i].Floats[k] }))
	}
	cols = append(cols,
		str("evidence_path", func(o *model.BatchObservation) string { return o.Evidence.Path }),
		intCol("evidence_line", n, func(i int) int64 { return obs[i].Evidence.Line }))
	return shard.Table{Name: TableBatch, Rows: n, Columns: cols}
}

// batch reads the table; cores written before it existed have none.
func (o *opener) batch(c *Core) {
	t, ok := o.s.Table(TableBatch)
	if !ok {
		return
	}
	b := &c.Batch
	*b = Batch{
		N: t.Rows, Kind: o.strs(t, "kind"), Format: o.strs(t, "format"),
		Worker: o.strs(t, "worker"), Host: o.strs(t, "host"), Role: o.strs(t, "role"),
		Rank: o.optInts(t, "rank"), RankKind: o.strs(t, "rank_kind"), LocalRank: o.optInts(t, "local_rank"),
		LocalTime: o.strs(t, "local_time"), FracDigits: o.ints(t, "frac_digits"), Start: o.optInts(t, "start_ns"),
		BatchKind: o.optStrs(t, "batch_kind"), Iteration: o.optInts(t, "iteration"),
		EvidencePath: o.strs(t, "evidence_path"), EvidenceLine: o.ints(t, "evidence_line"),
	}
	for k, name := range model.BatchIntNames {
		b.Ints[k] = o.optInts(t, name)
	}
	for k, name := range model.BatchFloatNames {
		b.Floats[k] = o.optFloats(t, name)
	}
	for i := range b.N {
		if o.err == nil && (b.FracDigits[i] < 0 || b.FracDigits[i] > 18) {
			o.err = fmt.Errorf("batch observation %d has %d fractional digits", i, b.FracDigits[i])
		}
	}
}

// Row rebuilds observation i with its absolute start.
func (b *Batch) Row(i int, originNS int64) model.BatchObservation {
	o := model.BatchObservation{
		Kind: b.Kind[i], Format: b.Format[i], Worker: b.Worker[i], Host: b.Host[i], Role: b.Role[i],
		Rank: b.Rank.At(i), RankKind: b.RankKind[i], LocalRank: b.LocalRank.At(i),
		LocalTime: b.LocalTime[i], FracDigits: int(b.FracDigits[i]),
		BatchKind: b.BatchKind.At(i), Iteration: b.Iteration.At(i),
		Evidence: model.LineRef{Path: b.EvidencePath[i], Line: b.EvidenceLine[i]},
	}
	if s := b.Start.At(i); s != nil {
		v := *s + originNS
		o.StartNS = &v
	}
	for k := range o.Ints {
		o.Ints[k] = b.Ints[k].At(i)
	}
	for k := range o.Floats {
		o.Floats[k] = b.Floats[k].At(i)
	}
	return o
}
