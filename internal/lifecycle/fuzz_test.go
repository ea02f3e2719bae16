package lifecycle_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
	"slices"
	"strconv"
	"testing"
)

// The fuzz input is a compact request: a 9-byte header (flags, duration
// in ms as uint32, first-token offset in ms as int32), then 13 bytes per
// span (name, role, trace, parent, start ms int32, duration ms int32 —
// negative allowed — and the associated selection phase).
var (
	fuzzNames = []string{
		"request.preprocessing", "kv_router.select_worker", "kv_router.route_request", "worker.admission",
		"worker.operation.prefill", "worker.operation.decode", "worker.operation.agg", "request.dispatch",
		"response.streaming.prefill", "response.streaming.decode", "response.streaming", "request.lifecycle",
	}
	fuzzRoles  = []string{"frontend", "prefill", "decode", "agg", "aggregated", "unknown", "PREFILL"}
	fuzzPhases = []string{"", "Prefill", "Decode", "agg", "Router"}
)

const (
	fuzzHeader   = 9
	fuzzSpanSize = 13
	fuzzMaxSpans = 64
	flagFirst    = 1 << 0
	flagRetry    = 1 << 1
	flagInverted = 1 << 2
)

func decodeFuzzRequest(data []byte) *model.RequestEvidence {
	if len(data) < fuzzHeader {
		return nil
	}
	flags := data[0]
	duration := int64(binary.LittleEndian.Uint32(data[1:]))
	first := int64(int32(binary.LittleEndian.Uint32(data[5:])))
	r := &model.RequestEvidence{
		Client:    model.ClientTiming{ID: "fuzz", StartNS: jointest.MS(0), EndNS: jointest.MS(duration), Evidence: jointest.ClientEvidence(1)},
		ServerIDs: []string{jointest.ServerID},
	}
	if flags&flagInverted != 0 {
		r.Client.EndNS = jointest.MS(-duration - 1)
	}
	if flags&flagFirst != 0 {
		r.Client.FirstNS = jointest.Ptr(jointest.MS(first))
	}
	if flags&flagRetry != 0 {
		r.ServerIDs = append(r.ServerIDs, jointest.OtherUUID)
	}
	body := data[fuzzHeader:]
	n := min(len(body)/fuzzSpanSize, fuzzMaxSpans)
	spans := make([]model.Span, n)
	for i := range n {
		b := body[i*fuzzSpanSize:]
		parent := "root"
		if b[3] > 0 {
			parent = "s" + strconv.Itoa(int(b[3]-1)%n)
		}
		start := int64(int32(binary.LittleEndian.Uint32(b[4:])))
		dur := int64(int32(binary.LittleEndian.Uint32(b[8:])))
		role := fuzzRoles[int(b[1])%len(fuzzRoles)]
		spans[i] = jointest.MakeSpan(jointest.SpanSpec{
			ID: "s" + strconv.Itoa(i), Name: fuzzNames[int(b[0])%len(fuzzNames)], Role: role,
			Parent: parent, Start: start, End: start + dur, Trace: "t" + strconv.Itoa(int(b[2])%3),
		}, i)
		sp := model.JoinedSpan{Span: &spans[i], Join: model.JoinRequestID}
		if phase := fuzzPhases[int(b[12])%len(fuzzPhases)]; phase != "" {
			sp.Routing = &model.RoutingContext{Phase: phase, RouteSpanID: "route", Basis: join.RoutingBasis}
		}
		r.Spans = append(r.Spans, sp)
	}
	return r
}

// encodeFuzzRequest is the inverse for whole-millisecond requests, so
// that the seeds include the fixture's joined request.
func encodeFuzzRequest(t testing.TB, r *model.RequestEvidence) []byte {
	toMS := func(ns int64) int64 { return (ns - jointest.Origin) / 1_000_000 }
	out := make([]byte, fuzzHeader)
	if r.Client.FirstNS != nil {
		out[0] |= flagFirst
		binary.LittleEndian.PutUint32(out[5:], uint32(int32(toMS(*r.Client.FirstNS))))
	}
	if len(r.ServerIDs) > 1 {
		out[0] |= flagRetry
	}
	binary.LittleEndian.PutUint32(out[1:], uint32(toMS(r.Client.EndNS)))
	index := map[string]int{}
	for i, sp := range r.Spans {
		index[sp.SpanID] = i
	}
	for _, sp := range r.Spans {
		b := make([]byte, fuzzSpanSize)
		b[0] = byte(slices.Index(fuzzNames, sp.Name))
		b[1] = byte(slices.Index(fuzzRoles, sp.Role()))
		if p, ok := index[sp.ParentSpanID]; ok {
			b[3] = byte(p + 1)
		}
		binary.LittleEndian.PutUint32(b[4:], uint32(int32(toMS(sp.StartNS))))
		binary.LittleEndian.PutUint32(b[8:], uint32(int32(toMS(sp.EndNS)-toMS(sp.StartNS))))
		if sp.Routing != nil {
			b[12] = byte(slices.Index(fuzzPhases, sp.Routing.Phase))
		}
		if slices.Contains(b[:2], 0xff) || b[12] == 0xff {
			t.Fatalf("span %s is outside the fuzz vocabulary", sp.SpanID)
		}
		out = append(out, b...)
	}
	return out
}

func FuzzDerive(f *testing.F) {
	j := jointest.JoinWriteRun(f)
	seed := encodeFuzzRequest(f, &j.Requests[0])
	f.Add(seed)
	f.Add(seed[:fuzzHeader])
	noFirst := slices.Clone(seed)
	noFirst[0] &^= flagFirst
	f.Add(noFirst)
	retry := slices.Clone(seed)
	retry[0] |= flagRetry
	f.Add(retry)
	f.Add(append(slices.Clone(seed), seed[fuzzHeader:fuzzHeader+fuzzSpanSize]...)) // repeated preprocessing
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		r := decodeFuzzRequest(data)
		if r == nil {
			return
		}
		l := lifecycle.Derive(r)
		if _, err := json.Marshal(l); err != nil {
			t.Fatal(err)
		}
		if err := lifecycleInvariants(r, l); err != nil {
			t.Fatal(err)
		}
	})
}

// lifecycleInvariants checks what every lifecycle must satisfy.
func lifecycleInvariants(r *model.RequestEvidence, l lifecycle.Lifecycle) error {
	activities := 0
	for _, sp := range r.Spans {
		if _, _, ok := lifecycle.ActivityFor(sp.Name, sp.Role(), ""); ok {
			activities++
		}
	}
	if len(l.Activities) != activities || l.Available != (activities > 0) {
		return fmt.Errorf("%d activities of %d, available %v", len(l.Activities), activities, l.Available)
	}
	if len(l.Rows) != len(l.Stages) || len(l.Milestones) != len(l.Stages) {
		return fmt.Errorf("%d stages, %d rows, %d milestones", len(l.Stages), len(l.Rows), len(l.Milestones))
	}
	c := &r.Client
	if !l.Available || c.EndNS < c.StartNS {
		if len(l.Stages) != 0 {
			return fmt.Errorf("%d stages without a partition", len(l.Stages))
		}
		return nil
	}
	if len(l.Issues) > 0 && len(l.Stages) > 2 {
		return fmt.Errorf("%d stages despite issues %q", len(l.Stages), l.Issues)
	}
	at, sum := c.StartNS, int64(0)
	for i, s := range l.Stages {
		if s.StartNS != at || s.EndNS < s.StartNS {
			return fmt.Errorf("stage %d [%d, %d] after %d", i, s.StartNS, s.EndNS, at)
		}
		if len(l.Rows[i]) != i+1 || l.Rows[i][i] != s.ID {
			return fmt.Errorf("row %d = %v", i, l.Rows[i])
		}
		sum += s.EndNS - s.StartNS
		if s.Label == lifecycle.LabelFirstToken && sum != *c.FirstNS-c.StartNS {
			return fmt.Errorf("stages through the first token sum to %d, TTFT %d", sum, *c.FirstNS-c.StartNS)
		}
		at = s.EndNS
	}
	if sum != c.EndNS-c.StartNS || len(l.Stages) == 0 || l.Stages[len(l.Stages)-1].Label != lifecycle.LabelClientComplete {
		return fmt.Errorf("stages sum to %d of %d", sum, c.EndNS-c.StartNS)
	}
	return nil
}

// The fixture survives the fuzz encoding, so the main seed exercises the
// full milestone path.
func TestFuzzSeedRoundTrip(t *testing.T) {
	j := jointest.JoinWriteRun(t)
	r := decodeFuzzRequest(encodeFuzzRequest(t, &j.Requests[0]))
	l := lifecycle.Derive(r)
	if len(l.Issues) != 0 || len(l.Stages) != 11 || len(l.Activities) != 12 {
		t.Fatalf("issues %q, %d stages, %d activities", l.Issues, len(l.Stages), len(l.Activities))
	}
	if err := lifecycleInvariants(r, l); err != nil {
		t.Fatal(err)
	}
}
