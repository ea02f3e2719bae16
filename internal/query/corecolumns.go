package query

import (
	"fmt"

	"github.com/dsight/dsight/internal/catalog"
)

// Which columns of the request table an answer reads. A kind that answers
// from counts and other tables (summary, workers) still opens an engine
// over the requests, and New indexes only a few of their columns; the
// others are most of a 100,000-request core's decoded values, and a fresh
// process touching that memory for the first time (page faults) was most
// of such a question's time. The page and the MCP server decode every
// column; TestQueryDecodesOnlyTheTablesItReads (cmd/build) checks that
// every answer asked so equals the answer over the whole core.

// engineColumns are the request columns New reads: the grouping indexes,
// the times and the TTFT (indexSessionSpans). The request id is not among
// them: New checks the id order only when the ids are decoded, as a
// question that prints or looks up no id does not read them.
var engineColumns = []string{"start_ns", "end_ns", "ttft_ms", "session_index", "agent_index"}

// readsRequestColumns lists, per kind, the only request columns its answer
// reads; a kind not listed reads every column. A kind listed reads the
// requests' server ids (request_server) only for a search.
var readsRequestColumns = map[string][]string{
	"summary": engineColumns,
	"workers": engineColumns,
	// A session lists its requests' ids and source traces; its filters
	// read the engine's columns, or the server table (worker).
	"sessions": append([]string{"id", "source_trace"}, engineColumns...),
}

// countsAgents are the kinds that read of the agents only their sessions
// (New's grouping): their ids, parents and depths are left undecoded.
var countsAgents = map[string]bool{"summary": true, "workers": true}

// searchColumns are the request columns a search reads besides the
// engine's (searchTexts: the identities it matches).
var searchColumns = []string{"id", "conversation", "source_trace"}

// SkippedColumns says which core columns answering kind op with the named
// arguments does not read, for shard.DecodeTableFramesSkipping and
// catalog.OpenColumns; nil means every column. A question naming a worker
// reads every column, as SkippedTables reads every table.
func SkippedColumns(op string, args map[string]bool) func(table, column string) bool {
	reads, ok := readsRequestColumns[op]
	if !ok || args["worker"] {
		return nil
	}
	set := make(map[string]bool, len(reads)+len(searchColumns))
	for _, c := range reads {
		set[c] = true
	}
	if args["search"] {
		for _, c := range searchColumns {
			set[c] = true
		}
	}
	search, agents := args["search"], countsAgents[op]
	return func(table, column string) bool {
		switch table {
		case catalog.TableAgents:
			return agents && column != "session"
		case catalog.TableRequests:
			return !set[column]
		case catalog.TableRequestServer:
			// The server ids are printed with a request and searched;
			// a kind listed above prints none.
			return column == "server_ids" && !search
		}
		return false
	}
}

// checkOrder checks that the requests ascend by (start, id), by start
// alone when the ids were left undecoded (SkippedColumns): nothing then
// reads them.
func checkOrder(r *catalog.Requests) error {
	for i := 1; i < r.N; i++ {
		if r.Start[i] > r.Start[i-1] {
			continue
		}
		if r.ID == nil && r.Start[i] == r.Start[i-1] {
			continue
		}
		if r.Start[i] < r.Start[i-1] {
			if r.ID == nil {
				return fmt.Errorf("requests are not sorted by start at request %d", i)
			}
			return fmt.Errorf("requests are not sorted by start at %q", r.ID[i])
		}
		if r.ID[i] < r.ID[i-1] {
			return fmt.Errorf("requests are not sorted by start at %q", r.ID[i])
		}
	}
	return nil
}
