package catalog

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

func batchSample(origin int64) []model.BatchObservation {
	start := origin + 2_230_000_000
	iter := origin + 3_000_000_000
	decode := "decode"
	it := model.BatchObservation{
		Kind: model.BatchTRTLLMIteration, Format: "trtllm-v4", Worker: "decode-0", Host: "h", Role: "decode",
		Rank: ptr(int64(4)), RankKind: model.RankGlobal, LocalRank: ptr(int64(0)), LocalTime: "2026-09-17 10:58:34",
		StartNS: &iter, Iteration: ptr(int64(42)), Evidence: model.LineRef{Path: "logs/h_decode_w0.out", Line: 3},
	}
	it.Ints[model.BatchRequests] = ptr(int64(0))
	it.Floats[model.BatchKVCacheUtil] = ptr(0.25)
	snap := model.BatchObservation{
		Kind: model.BatchTokenSpeedSnapshot, Format: "tokenspeed", Worker: "decode-0", Host: "h", Role: "decode",
		Rank: ptr(int64(0)), RankKind: model.RankAttentionTP, LocalTime: "2026-09-17 10:58:33,230", FracDigits: 3,
		StartNS: &start, BatchKind: &decode, Evidence: model.LineRef{Path: "logs/h_decode_w0.out", Line: 9},
	}
	snap.Ints[model.BatchRunning], snap.Ints[model.BatchQueued], snap.Ints[model.BatchPagesTotal] = ptr(int64(4)), ptr(int64(12)), ptr(int64(4096))
	unaligned := it
	unaligned.StartNS, unaligned.Evidence.Line = nil, 11
	return []model.BatchObservation{snap, it, unaligned}
}

// TestBatchRoundTrip: every field survives the core, nulls stay null and
// zeros stay zero, an unaligned start stays null.
func TestBatchRoundTrip(t *testing.T) {
	want := &model.Dataset{Meta: model.Meta{Job: "j", OriginNS: 1789642711000000000, DurationNS: 9e9}, Audit: model.Audit{}}
	want.BatchObservations = batchSample(want.Meta.OriginNS)
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
	if !reflect.DeepEqual(got.BatchObservations, want.BatchObservations) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got.BatchObservations, want.BatchObservations)
	}
	if got.BatchObservations[2].StartNS != nil || *got.BatchObservations[1].Ints[model.BatchRequests] != 0 || got.BatchObservations[1].Ints[model.BatchRunning] != nil {
		t.Fatal("null/zero confusion")
	}
}

// TestBatchTableSize measures what the observations cost in the core the
// page decodes before it is ready (go test -run BatchTableSize -v).
func TestBatchTableSize(t *testing.T) {
	origin := int64(1789642711000000000)
	for _, n := range []int{10_000, 100_000} {
		d := &model.Dataset{Meta: model.Meta{Job: "j", OriginNS: origin, DurationNS: 1e12}, Audit: model.Audit{}}
		base := batchSample(origin)
		for i := range n {
			o := base[i%2]
			s := origin + int64(i)*10_000_000
			o.StartNS, o.Evidence.Line = &s, int64(i+1)
			o.Iteration = ptr(int64(i))
			o.Ints[model.BatchRunning] = ptr(int64(i % 64))
			d.BatchObservations = append(d.BatchObservations, o)
		}
		raw, err := shard.Encode(Encode(d))
		if err != nil {
			t.Fatal(err)
		}
		gz, err := shard.Compress(raw)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d observations: core %d bytes raw (%.1f/row), %d gzipped (%.1f/row)", n, len(raw), float64(len(raw))/float64(n), len(gz), float64(len(gz))/float64(n))
		if len(gz) > 64*n {
			t.Errorf("%s per row is more than the core can hold at ready", fmt.Sprint(len(gz)/n))
		}
	}
}
