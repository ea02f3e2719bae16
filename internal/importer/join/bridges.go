package join

import "github.com/dsight/dsight/internal/model"

// Bridges are a run's frontend bridges as the join reads them: for each,
// the client's request id, the Dynamo request id and the first line
// recording the pair, in the order given (NewBridges). A run of a million
// requests has a million or more, held from the scan of the frontend logs
// to the bridging; a record of the frontend log's scanner is some 300
// bytes, one kept here 56.
type Bridges struct {
	recs []bridgeRec
	// strs holds the paths, and the ids that are not canonical UUIDs.
	strs strTable
	// window frames the bridges' times that carry an explicit offset.
	window timeWindow
}

// bridgeRec is a bridge: its two ids, and its line (path in strs).
type bridgeRec struct {
	client, server compactID
	line           int64
	path           uint32
}

// NewBridges keeps what the join reads of bridges, in their order.
func NewBridges(bs []model.Bridge) Bridges {
	out := Bridges{recs: make([]bridgeRec, len(bs))}
	for k := range bs {
		b, r := &bs[k], &out.recs[k]
		r.line, r.path = b.Ref.Line, out.strs.intern(b.Ref.Path)
		r.client, r.server = newCompactID(b.ClientID, &out.strs), newCompactID(b.ServerID, &out.strs)
		out.window.add(b.Time)
	}
	out.strs.seal()
	return out
}

// Len is the number of bridges.
func (b *Bridges) Len() int { return len(b.recs) }

// Window is the earliest and latest bridge time that carries an explicit
// offset; ok is false when no bridge records one.
func (b *Bridges) Window() (lo, hi int64, ok bool) { return b.window.lo, b.window.hi, b.window.timed }

// bridgeIDs are a bridge's ids as recorded, in buffers the caller owns:
// the texts are views of them, read and never kept.
type bridgeIDs struct{ client, server [36]byte }

// ids returns bridge k's client and server ids, viewing buf.
func (b *Bridges) ids(k int, buf *bridgeIDs) (client, server []byte) {
	r := &b.recs[k]
	return r.client.recorded(&b.strs, &buf.client), r.server.recorded(&b.strs, &buf.server)
}

// ref is bridge k's line.
func (b *Bridges) ref(k int) model.LineRef {
	return model.LineRef{Path: b.strs.strs[b.recs[k].path], Line: b.recs[k].line}
}

// timeWindow frames the recorded times that carry an explicit offset:
// lo and hi, when timed.
type timeWindow struct {
	lo, hi int64
	timed  bool
}

func (w *timeWindow) add(t *model.Timestamp) {
	if t == nil || t.UnixNS == nil {
		return
	}
	ns := *t.UnixNS
	if !w.timed {
		w.lo, w.hi, w.timed = ns, ns, true
	}
	w.lo, w.hi = min(w.lo, ns), max(w.hi, ns)
}
