package main

import (
	"slices"
	"testing"
)

// A summary or a workers list naming no worker decodes, of the request
// table, only the columns its engine indexes: the request ids and every
// other column stay undecoded (nil), though the row count is known; a
// sessions page adds the ids; only a search reads the server ids (of
// request_server); the first two read of the agents only their sessions;
// a workers question naming a worker decodes
// every column.
// TestQueryDecodesOnlyTheTablesItReads checks that their answers are the
// whole core's.
func TestQueryDecodesOnlyTheRequestColumnsItReads(t *testing.T) {
	dir, _ := goldenDir(t)
	for _, argv := range [][]string{{"summary"}, {"workers"}, {"workers", "--role", "decode"}} {
		_, rep := askWith(t, dir, argv, true)
		r := &rep.Core.Requests
		if r.N == 0 || len(r.Start) != r.N || len(r.End) != r.N || len(r.SessionIndex) != r.N || len(r.TTFT.V) != r.N {
			t.Fatalf("%v: %d requests, with %d starts, %d ends, %d session indexes and %d TTFTs", argv, r.N, len(r.Start), len(r.End), len(r.SessionIndex), len(r.TTFT.V))
		}
		if len(rep.Core.Server.Request) == 0 || rep.Core.Server.ServerIDs != nil {
			t.Errorf("%v: %d requests with server evidence, their server ids decoded: %v", argv, len(rep.Core.Server.Request), rep.Core.Server.ServerIDs != nil)
		}
		if ag := &rep.Core.Agents; len(ag.Session) == 0 || ag.ID != nil || ag.Parent.V != nil || ag.Depth != nil {
			t.Errorf("%v: %d agents, their ids, parents or depths decoded", argv, len(ag.Session))
		}
		if r.ID != nil || r.Status != nil || r.EvidenceLine != nil || r.InputTokens.V != nil || r.Worker.V != nil || r.TimingQuality != nil {
			t.Errorf("%v: request columns the answer does not read were decoded", argv)
		}
	}
	// A sessions page lists request ids; a search reads the conversations
	// too; neither reads a status or a token count.
	for _, argv := range [][]string{{"sessions", "--limit", "3"}, {"sessions", "--search", "a"}} {
		_, rep := askWith(t, dir, argv, true)
		r := &rep.Core.Requests
		if ag := &rep.Core.Agents; len(ag.ID) != len(ag.Session) || len(ag.Depth) != len(ag.Session) {
			t.Errorf("%v: %d agents, %d ids and %d depths decoded", argv, len(ag.Session), len(ag.ID), len(ag.Depth))
		}
		if len(r.ID) != r.N || r.Status != nil || r.InputTokens.V != nil || r.EvidenceLine != nil {
			t.Errorf("%v: %d requests, %d ids, %d statuses, %d input token counts", argv, r.N, len(r.ID), len(r.Status), len(r.InputTokens.V))
		}
		searched := slices.Contains(argv, "--search")
		if searched != (len(rep.Core.Server.ServerIDs) == len(rep.Core.Server.Request)) {
			t.Errorf("%v: %d server id lists decoded of %d", argv, len(rep.Core.Server.ServerIDs), len(rep.Core.Server.Request))
		}
		if searched != (len(r.Conversation.V) == r.N) {
			t.Errorf("%v: %d conversations decoded of %d", argv, len(r.Conversation.V), r.N)
		}
	}
	_, rep := askWith(t, dir, []string{"workers", "--worker", "decode-0"}, true)
	if r := &rep.Core.Requests; len(r.ID) != r.N || len(r.Status) != r.N || len(r.Worker.V) != r.N {
		t.Errorf("workers --worker: %d requests, %d ids, %d statuses, %d client workers", r.N, len(r.ID), len(r.Status), len(r.Worker.V))
	}
}
