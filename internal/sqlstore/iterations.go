package sqlstore

import (
	"strings"

	"github.com/dsight/dsight/internal/model"
)

// iterationsTable declares one column per batch counter, named as the
// model names them in answers and shards (model.BatchIntNames and
// BatchFloatNames), so the store adds no list of its own.
func iterationsTable() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE iterations(ordinal INTEGER PRIMARY KEY, kind TEXT NOT NULL, format TEXT, worker TEXT NOT NULL,
		host TEXT, role TEXT, rank INTEGER, rank_kind TEXT, local_rank INTEGER, start REAL, resolution_s REAL NOT NULL,
		local_time TEXT, batch_kind TEXT, iteration INTEGER`)
	for _, n := range model.BatchIntNames {
		b.WriteString(", " + n + " INTEGER")
	}
	for _, n := range model.BatchFloatNames {
		b.WriteString(", " + n + " REAL")
	}
	b.WriteString(", source INTEGER, path TEXT, line INTEGER NOT NULL)")
	return b.String()
}

const iterationFixedColumns = 14 + 3

func (w *writer) iterations(d *model.Dataset) error {
	cols := iterationFixedColumns + int(model.NumBatchInts) + int(model.NumBatchFloats)
	return w.table("iterations", cols, func(ins *inserter) error {
		row := make([]any, 0, cols)
		for i := range d.BatchObservations {
			o := &d.BatchObservations[i]
			row = append(row[:0], i, o.Kind, nonEmpty(o.Format), o.Worker, nonEmpty(o.Host), nonEmpty(o.Role),
				opt(o.Rank), nonEmpty(o.RankKind), opt(o.LocalRank), w.optSeconds(o.StartNS), relSeconds(o.ResolutionNS()),
				nonEmpty(o.LocalTime), opt(o.BatchKind), opt(o.Iteration))
			for _, v := range o.Ints {
				row = append(row, opt(v))
			}
			for _, v := range o.Floats {
				row = append(row, opt(v))
			}
			src, path := w.source(o.Evidence.Path)
			row = append(row, src, path, o.Evidence.Line)
			if err := ins.add(row...); err != nil {
				return err
			}
		}
		return nil
	})
}
