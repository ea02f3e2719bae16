package catalog

import (
	"fmt"
	"sort"

	"github.com/dsight/dsight/internal/shard"
)

// A question about one request (dsight query request ID) reads of the
// request tables that request's row only. RequestPicks names, for
// shard.DecodeTableFramesPicking, the rows to keep: the requests whose id
// is the one asked, and the issues and server evidence naming them; the
// id order is not read (OpenRows builds it over the rows kept). OpenRows
// then lays them out as the core of those requests alone, so the engine
// answers about them exactly as over the whole core.

// RequestPicks keeps of the request tables the rows of request id.
func RequestPicks(id string) shard.PickRows {
	return func(table string) *shard.RowPick {
		switch table {
		case TableRequests:
			return &shard.RowPick{Key: "id", Text: id}
		case TableRequestIssues, TableRequestServer:
			return &shard.RowPick{Key: "request", Of: TableRequests}
		}
		return nil
	}
}

// RowPicks keeps of the request tables requests rows (ascending row
// numbers of the whole table) and the rows naming them.
func RowPicks(rows []int) shard.PickRows {
	return func(table string) *shard.RowPick {
		switch table {
		case TableRequests:
			return &shard.RowPick{Rows: rows}
		case TableRequestIssues, TableRequestServer:
			return &shard.RowPick{Key: "request", Of: TableRequests}
		}
		return nil
	}
}

// PicksReadTable says whether a core decoded by RequestPicks reads table:
// every table but the id order.
func PicksReadTable(table string) bool { return table != TableRequestOrder }

// OpenRows is OpenColumns over a core decoded by RequestPicks: kept lists
// the rows kept of the requests table, as row numbers of the whole table.
// The issues' and the server evidence's request numbers are renumbered to
// the rows kept, and the id order is built over them. chunks is the run's
// count of evidence chunks (the manifest's), which the requests kept no
// longer tell: an evidence piece is checked against it.
func OpenRows(s *shard.Shard, kept []int, chunks int, skipped func(table string) bool, skippedColumns shard.SkipColumn) (*Core, error) {
	for _, name := range []string{TableRequestIssues, TableRequestServer} {
		t, ok := s.Table(name)
		if !ok {
			continue
		}
		c, ok := t.Column("request")
		if !ok || c.Type != shard.Int64 || c.Valid != nil {
			continue // OpenColumns names the flaw
		}
		for k, i := range c.Ints {
			at := sort.SearchInts(kept, int(i))
			if at == len(kept) || kept[at] != int(i) {
				return nil, fmt.Errorf("table %s: row %d names request %d, not a row kept", name, k, i)
			}
			c.Ints[k] = int64(at)
		}
	}
	if _, ok := s.Table(TableRequestOrder); ok {
		return nil, fmt.Errorf("core shard: the request id order was decoded with the rows picked")
	}
	order := make([]int64, len(kept))
	for k := range order {
		order[k] = int64(k)
	}
	if t, ok := s.Table(TableRequests); ok {
		if c, ok := t.Column("id"); ok && c.Type == shard.String && len(c.Strings) == len(order) {
			sort.SliceStable(order, func(a, b int) bool { return c.Strings[order[a]] < c.Strings[order[b]] })
		}
	}
	s.Tables = append(s.Tables, shard.Table{Name: TableRequestOrder, Rows: len(order), Columns: []shard.Column{
		{Name: "request", Type: shard.Int64, Ints: order},
	}})
	c, err := OpenColumns(s, skipped, skippedColumns)
	if err != nil {
		return nil, err
	}
	c.chunkCount = chunks
	return c, nil
}
