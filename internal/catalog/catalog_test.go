package catalog

import (
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

func ptr[T any](v T) *T { return &v }

func sample() *model.Dataset {
	return &model.Dataset{
		Meta: model.Meta{
			Job: "job <b>", OriginNS: 1789642711000000000, DurationNS: 9_500_000_000, SourceRoot: "/runs/a",
			Phase: "profiling", TimeBasis: "client measurement window", ClientKind: "aiperf", OTelEnabled: true,
			Limitations: []string{"one"}, Warnings: []string{"two", "three"},
		},
		Audit:   model.Audit{"client_requests": 3, "sessions": 2, "excluded_client_rows": 1},
		Sources: []model.Source{{ID: 0, Path: "logs/profile_export.jsonl", Kind: "client", Bytes: 1234, SHA256: "ab"}},
		Requests: []model.Request{
			{
				ID: "<img src=x onerror=alert(1)>", Session: "s1", Agent: "a1", Parent: nil, Conversation: ptr("c\"1"),
				Turn: ptr(int64(0)), Depth: 0, StartNS: 0, EndNS: 8_000_000_000, FirstNS: ptr(int64(3_000_000_000)), TTFTms: ptr(3000.0),
				InputTokens: ptr(int64(550)), OutputTokens: ptr(int64(0)), Status: model.StatusCompleted, Phase: ptr("profiling"),
				Worker: ptr("worker_1"), Evidence: model.Ref{Source: 0, Line: 2}, Issues: []string{"x", "y"},
				TimingQuality: "client export", CacheUsageEvidence: &model.Ref{Source: 0, Line: 2}, PhaseEvidence: &model.Ref{Source: 1, Line: 7},
				IdentityEvidence: &model.Ref{Source: 2, Line: 0}, OriginalStart: ptr("1789642711.5"), OriginalEnd: ptr("1789642719.5"),
				Server: &model.RequestServer{ServerIDs: []string{"u1", "u2"}, Workers: []string{}, SpanCount: 3, LifecycleAvailable: true, Evidence: EvidencePerChunk},
			},
			{
				ID: "r2", Session: "s1", Agent: "a2", Parent: ptr("a1"), Depth: 1, StartNS: 1, EndNS: 2,
				Status: model.StatusCancelled, Error: ptr("RequestCancellationError (499)"), Evidence: model.Ref{Source: 0, Line: 3},
			},
			{ID: "r3", Session: "s2", Agent: "s2", StartNS: 9_000_000_000, EndNS: 9_500_000_000, CachedTokens: ptr(int64(0)), Status: model.StatusError, Evidence: model.Ref{Line: 5}},
		},
		Evidence:    sampleEvidence(),
		Unread:      []string{"logs/worker.out"},
		ServerSpans: everyField()[0].Spans[1:],
	}
}

// sampleEvidence fills two chunks; the first request's evidence opens the
// second.
func sampleEvidence() []model.RequestEvidence {
	ev := make([]model.RequestEvidence, EvidencePerChunk+1)
	for i := range ev {
		ev[i] = everyField()[1]
	}
	ev[EvidencePerChunk] = everyField()[0]
	return ev
}

func TestRoundTrip(t *testing.T) {
	want := sample()
	raw, err := shard.Encode(Encode(want))
	if err != nil {
		t.Fatal(err)
	}
	gz, err := shard.Compress(raw)
	if err != nil {
		t.Fatal(err)
	}
	back, err := shard.Decompress(gz)
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.Decode(back)
	if err != nil {
		t.Fatal(err)
	}
	evRaw, err := shard.Encode(EncodeEvidence(want))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := shard.Decode(evRaw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(s, ev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
	}
	// Null stays null and zero stays zero: the two must never merge.
	if got.Requests[0].OutputTokens == nil || *got.Requests[0].OutputTokens != 0 || got.Requests[0].CachedTokens != nil {
		t.Fatalf("zero/null confusion: %+v", got.Requests[0])
	}
}

func TestEmptyDatasetRoundTrip(t *testing.T) {
	want := &model.Dataset{Meta: model.Meta{Job: "j", DurationNS: 1}, Audit: model.Audit{}}
	raw, err := shard.Encode(Encode(want))
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	want.Requests = []model.Request{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v want %+v", got, want)
	}
}

func TestDecodeRejects(t *testing.T) {
	good := Encode(sample())
	cases := map[string]func(s *shard.Shard){
		"wrong kind":         func(s *shard.Shard) { s.Kind = "metrics" },
		"missing table":      func(s *shard.Shard) { s.Tables = s.Tables[:4] },
		"missing column":     func(s *shard.Shard) { s.Tables[4].Columns = s.Tables[4].Columns[1:] },
		"wrong type":         func(s *shard.Shard) { s.Tables[4].Columns[8].Type = shard.Float64 },
		"issue out of range": func(s *shard.Shard) { s.Tables[5].Columns[0].Ints[0] = 99 },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			s := Encode(sample())
			mutate(s)
			if _, err := Decode(s, EncodeEvidence(sample())); err == nil {
				t.Fatal("decoded a broken shard")
			}
		})
	}
	if _, err := Decode(good, EncodeEvidence(sample())); err != nil {
		t.Fatal(err)
	}
	// Evidence that does not hold a request's chunk, or is no evidence
	// shard, is refused when attached.
	for name, ev := range map[string]*shard.Shard{
		"too few chunks": EncodeEvidence(&model.Dataset{Evidence: everyField()[:1]}),
		"wrong kind":     good,
	} {
		c, err := Open(Encode(sample()))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AttachEvidence(ev); err == nil {
			t.Errorf("%s: attached", name)
		}
		if c.HasEvidence() {
			t.Errorf("%s: a refused shard left evidence attached", name)
		}
	}
}
