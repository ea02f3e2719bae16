package join_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/spanspill"
	"github.com/dsight/dsight/tools/gen/synth"
)

// generatedInput reads a generated traced run, with clients taken from its
// bridges (plus two no bridge names, and one whose bridges are dropped) over the run's whole time range.
func generatedInput(t *testing.T) ([]model.ClientTiming, join.Input) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{
		Seed: 4, Requests: 300, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
		OTelUntraced: 0.2, ClockOddities: true,
	}); err != nil {
		t.Fatal(err)
	}
	logs := os.DirFS(filepath.Join(dir, "logs"))
	in, bridges := jointest.ReadRun(t, logs), jointest.ReadBridges(t, logs)
	var ids []string
	for _, b := range bridges {
		if !slices.Contains(ids, b.ClientID) {
			ids = append(ids, b.ClientID)
		}
	}
	ids = append(ids, "unbridged-a", "unbridged-b")
	// One client's bridges are lost: its spans join no request.
	in.Bridges = join.NewBridges(slices.DeleteFunc(bridges, func(b model.Bridge) bool { return b.ClientID == ids[0] }))
	lo, hi := in.Spans[0].StartNS, in.Spans[0].EndNS
	for _, sp := range in.Spans {
		lo, hi = min(lo, sp.StartNS), max(hi, sp.EndNS)
	}
	clients := make([]model.ClientTiming, len(ids))
	for i, id := range ids {
		clients[i] = model.ClientTiming{ID: id, StartNS: lo, EndNS: hi}
	}
	// A window that leaves some spans out, so that some are dropped.
	in.Window = &join.Window{StartNS: lo, EndNS: hi - (hi-lo)/20}
	return clients, in
}

// streamJoin joins through a Stream whose spans wait in spill buckets of
// consecutive requests, finished last bucket first.
func streamJoin(t *testing.T, clients []model.ClientTiming, in join.Input, buckets int) *join.Joined {
	t.Helper()
	st, err := join.NewStream(clients, in)
	if err != nil {
		t.Fatal(err)
	}
	for k := range in.Spans {
		st.Link(&in.Spans[k])
	}
	per := (len(clients) + buckets - 1) / buckets
	store, err := spanspill.New(t.TempDir(), buckets)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var server []model.JoinedSpan
	for k := range in.Spans {
		switch owner, isServer := st.Route(&in.Spans[k]); {
		case owner >= 0:
			if err := store.Add(owner/per, &in.Spans[k]); err != nil {
				t.Fatal(err)
			}
		case isServer:
			server = append(server, model.JoinedSpan{Span: &in.Spans[k]})
		}
	}
	st.AttachWorkerLogs()
	reqs := make([]model.RequestEvidence, len(clients))
	for b := buckets - 1; b >= 0; b-- {
		spans, err := store.Read(b)
		if err != nil {
			t.Fatal(err)
		}
		ptrs, owners := make([]*model.Span, len(spans)), make([]int, len(spans))
		for k := range spans {
			ptrs[k], owners[k] = &spans[k], st.Owner(&spans[k])
		}
		lo, hi := b*per, min((b+1)*per, len(clients))
		ev, err := st.Finish(lo, hi, ptrs, owners)
		if err != nil {
			t.Fatal(err)
		}
		copy(reqs[lo:hi], ev)
	}
	out := st.Result(server)
	out.Requests = reqs
	return out
}

func encodeRequests(reqs []model.RequestEvidence) [][]byte {
	var chunks [][]byte
	for lo := 0; lo < len(reqs); lo += catalog.EvidencePerChunk {
		w := catalog.NewEvidenceWriter()
		for k := lo; k < min(lo+catalog.EvidencePerChunk, len(reqs)); k++ {
			w.AddRequest(&reqs[k])
		}
		chunks = append(chunks, w.Bytes())
	}
	return chunks
}

// The join taken bucket by bucket, its spans spilled in between, stores
// what the join over every span in memory does, byte for byte, and counts
// the same.
func TestStreamMatchesJoin(t *testing.T) {
	clients, in := generatedInput(t)
	want, err := join.Join(clients, in)
	if err != nil {
		t.Fatal(err)
	}
	if want.Audit["joined_spans"] == 0 || want.Audit["out_of_window_spans"] == 0 || want.Audit["unjoined_spans"] == 0 || len(want.ServerSpans) == 0 {
		t.Fatalf("the run exercises too little: %v", want.Audit)
	}
	wantChunks := encodeRequests(want.Requests)
	for _, buckets := range []int{1, 3, 16} {
		got := streamJoin(t, clients, in, buckets)
		if !reflect.DeepEqual(got.Audit, want.Audit) || got.FirstUnjoined != want.FirstUnjoined {
			t.Fatalf("%d buckets: audit %v, first unjoined %q; want %v, %q", buckets, got.Audit, got.FirstUnjoined, want.Audit, want.FirstUnjoined)
		}
		gotChunks := encodeRequests(got.Requests)
		for k := range wantChunks {
			if !bytes.Equal(gotChunks[k], wantChunks[k]) {
				t.Fatalf("%d buckets: evidence chunk %d differs", buckets, k)
			}
		}
		if len(got.ServerSpans) != len(want.ServerSpans) {
			t.Fatalf("%d buckets: %d server spans, want %d", buckets, len(got.ServerSpans), len(want.ServerSpans))
		}
		for k := range got.ServerSpans {
			if got.ServerSpans[k].Span != want.ServerSpans[k].Span {
				t.Fatalf("%d buckets: server span %d differs", buckets, k)
			}
		}
	}
}

// A span given to the wrong range is refused, never filed under another
// request.
func TestFinishRefusesForeignSpans(t *testing.T) {
	clients, in := generatedInput(t)
	st, err := join.NewStream(clients, in)
	if err != nil {
		t.Fatal(err)
	}
	for k := range in.Spans {
		st.Link(&in.Spans[k])
	}
	for k := range in.Spans {
		st.Route(&in.Spans[k])
	}
	st.AttachWorkerLogs()
	for k := range in.Spans {
		if o := st.Owner(&in.Spans[k]); o > 0 {
			if _, err := st.Finish(0, o, []*model.Span{&in.Spans[k]}, []int{o}); err == nil {
				t.Fatal("a span of request", o, "finished with requests 0 ..", o-1)
			}
			return
		}
	}
	t.Fatal("no joined span")
}
