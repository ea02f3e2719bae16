package query

import "github.com/dsight/dsight/internal/catalog"

// A one-shot "requests" question (dsight query requests) chooses its page
// over the columns its range and filters read (PageColumns), then writes
// the page's items from a core holding the page's rows alone
// (WritePagesFrom): of a 100,000-request core it so decodes a few columns
// of every row and every column of twenty, not every column of every
// row. The engine the page is chosen by never reads a printed column, so
// those are left undecoded (nil) there and a reader reaching one fails
// loudly; TestQueryWritesRequestPagesFromTheirRows (cmd/build) checks that
// every answer equals the whole core's.

// WritePagesFrom makes e write every page of requests from the engine
// open returns over the page's rows (ascending request indexes of e),
// laid out as catalog.OpenRows lays them: its request i is e's rows[i].
func (e *Engine) WritePagesFrom(open func(rows []int) (*Engine, error)) { e.pageFrom = open }

// rehome points p at the engine over its rows alone, when e writes pages
// so.
func (p *requestPage) rehome() (*requestPage, error) {
	if p.e.pageFrom == nil {
		return p, nil
	}
	rows := append([]int{}, p.rows...)
	page, err := p.e.pageFrom(rows)
	if err != nil {
		return nil, err
	}
	if page.r.N != len(rows) {
		return nil, &Error{Code: CodeInternal, Message: "the page's rows opened as a different number of requests"}
	}
	p.e = page
	for k := range p.rows {
		p.rows[k] = k
	}
	return p, nil
}

// PageColumns says which core columns choosing the page of a "requests"
// question with the named arguments does not read (as SkippedColumns
// says for the other kinds); nil for any other kind, or a question naming
// a worker, which reads every column. The page is then written by
// WritePagesFrom.
func PageColumns(op string, args map[string]bool) func(table, column string) bool {
	if op != "requests" || args["worker"] {
		return nil
	}
	set := make(map[string]bool, len(engineColumns)+len(searchColumns))
	for _, c := range engineColumns {
		set[c] = true
	}
	search := args["search"]
	if search {
		for _, c := range searchColumns {
			set[c] = true
		}
	}
	// A search matches the agents' ids and an agent filter compares them.
	agents := search || args["agent"]
	return func(table, column string) bool {
		switch table {
		case catalog.TableAgents:
			return !agents && column != "session"
		case catalog.TableRequests:
			return !set[column]
		case catalog.TableRequestServer:
			return !search && (column == "server_ids" || column == "workers")
		}
		return false
	}
}
