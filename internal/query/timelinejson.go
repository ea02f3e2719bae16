package query

import "strconv"

// The timeline's and the window overview's answers write their own JSON.
// The page asks both on every zoom, pan and fit, and json.Marshal's
// reflection made up ~0.3 ms of each under wasm (docs/measurements.md,
// issue 17). Each writes exactly what json.Marshal writes
// (TestTimelineJSONIsMarshal), and declines what json.Marshal refuses
// (a number with no JSON form), which then fails as it always has.

// plainTimelinePage and plainWindowOverview are the answers without their
// writers, for json.Marshal.
type (
	plainTimelinePage   TimelinePage
	plainWindowOverview WindowOverview
)

func (p *TimelinePage) fallback() any { return (*plainTimelinePage)(p) }

func (p *TimelinePage) appendJSON(dst []byte) ([]byte, bool) {
	w := &fieldWriter{b: dst, ok: true}
	w.int(`{"total":`, int64(p.Total))
	w.int(`,"offset":`, int64(p.Offset))
	w.int(`,"limit":`, int64(p.Limit))
	w.num(`,"range":[`, p.Range[0])
	w.num(",", p.Range[1])
	w.raw(`],"items":`)
	writeList(w, p.Items, (*fieldWriter).timelineSession)
	w.int(`,"matching_requests":`, int64(p.MatchingRequests))
	w.int(`,"focus_index":`, int64(p.FocusIndex))
	w.raw("}")
	return w.b, w.ok
}

func (w *fieldWriter) timelineSession(s *TimelineSession) {
	w.str(`{"id":`, s.ID)
	w.num(`,"start":`, s.Start)
	w.num(`,"end":`, s.End)
	w.int(`,"matching":`, int64(s.Matching))
	w.numPtr(`,"max_ttft_ms":`, s.MaxTTFTms)
	w.int(`,"agent_count":`, int64(s.AgentsN))
	if len(s.Agents) > 0 { // omitempty
		w.raw(`,"agents":`)
		writeList(w, s.Agents, (*fieldWriter).timelineAgent)
	}
	w.raw("}")
}

func (w *fieldWriter) timelineAgent(a *TimelineAgent) {
	w.str(`{"id":`, a.ID)
	w.strPtr(`,"parent":`, a.Parent)
	w.int(`,"depth":`, a.Depth)
	w.str(`,"label":`, a.Label)
	w.raw(`,"bars":`)
	writeList(w, a.Bars, (*fieldWriter).bar)
	w.raw("}")
}

func (w *fieldWriter) bar(b *Bar) {
	w.str(`{"id":`, b.ID)
	w.num(`,"start":`, b.Start)
	w.num(`,"end":`, b.End)
	w.numPtr(`,"first":`, b.First)
	w.numPtr(`,"ttft_ms":`, b.TTFTms)
	w.str(`,"status":`, b.Status)
	w.intPtr(`,"turn":`, b.Turn)
	w.intPtr(`,"input_tokens":`, b.InputTokens)
	w.intPtr(`,"output_tokens":`, b.OutputTokens)
	w.bool(`,"invalid_first":`, b.Invalid)
	w.bool(`,"lifecycle":`, b.Lifecycle)
	w.raw("}")
}

func (o WindowOverview) fallback() any { return plainWindowOverview(o) }

func (o WindowOverview) appendJSON(dst []byte) ([]byte, bool) {
	w := &fieldWriter{b: dst, ok: true}
	w.str(`{"basis":`, o.Basis)
	w.num(`,"duration":`, o.Duration)
	w.num(`,"bin_seconds":`, o.BinSeconds)
	w.raw(`,"counts":`)
	if o.Counts == nil {
		w.raw("null")
	} else {
		// Written here, not by writeList: a call per count was most of it.
		b := append(w.b, '[')
		for k, n := range o.Counts {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		w.b = append(b, ']')
	}
	w.int(`,"max":`, int64(o.Max))
	w.num(`,"from":`, o.From)
	w.num(`,"to":`, o.To)
	w.raw("}")
	return w.b, w.ok
}
