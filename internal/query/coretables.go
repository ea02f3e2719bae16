package query

import "github.com/dsight/dsight/internal/catalog"

// Which core tables an answer reads. A one-shot reader (dsight query) opens
// the core for one question, and decoding tables the answer never looks at
// was most of its time: the request tables are most of a traced core's
// bytes, the metric catalog most of a small one's. The page and the MCP
// server keep decoding the whole core; TestQueryDecodesOnlyTheTablesItReads
// (cmd/build) checks that every answer asked so equals the answer over the
// whole core.

// requestTables are the requests, their sessions and agents and the
// requests' server evidence index.
var requestTables = []string{
	catalog.TableRequests, catalog.TableRequestIssues, catalog.TableSessions,
	catalog.TableAgents, catalog.TableRequestOrder, catalog.TableRequestServer,
}

// contextTables are the metric catalog, the Nsight profiles and the
// iteration records: what a question about requests never reads.
var contextTables = []string{
	catalog.TableMetricFamilies, catalog.TableMetricSeries, catalog.TableMetricLabels,
	catalog.TableMetricSources, catalog.TableMetricShardParts, catalog.TableProfiles, catalog.TableBatch,
}

// skipsTables lists, per kind, the core tables its answer does not read.
// A kind not listed reads them all (summary, workers and the page's kinds
// count or draw everything).
var skipsTables = map[string][]string{
	"sources":         requestTables,
	"metric_families": requestTables,
	"metric_series":   requestTables,
	"metric_plan":     requestTables,
	"metrics":         requestTables,
	"profiles":        requestTables,
	"nsys":            requestTables,
	"cpu":             requestTables,
	"iterations":      requestTables,
	"server_spans":    requestTables,
	"requests":        contextTables,
	"sessions":        contextTables,
	"request":         contextTables,
	"lifecycle":       contextTables,
}

// SkippedTables says which core tables answering kind op with the named
// arguments does not read, for shard.DecodeTables and catalog.OpenTables;
// nil means every table. A question naming a worker reads every table:
// an unknown worker's error lists the workers every collection names.
func SkippedTables(op string, args map[string]bool) func(table string) bool {
	skip := skipsTables[op]
	if len(skip) == 0 || args["worker"] {
		return nil
	}
	set := make(map[string]bool, len(skip))
	for _, t := range skip {
		set[t] = true
	}
	return func(table string) bool { return set[table] }
}
