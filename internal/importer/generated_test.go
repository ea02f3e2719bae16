package importer

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/tools/gen/synth"
)

// A generated disaggregated run with every server source and its fault
// knobs: untraced requests keep their client bars and get no lifecycle,
// the duplicate collector export is dropped span for span, and the planted
// skew and retry oddities suppress the derived partition while their raw
// spans and client timing stay.
func TestGeneratedRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	sum, err := synth.WriteRun(dir, synth.Config{
		Seed: 5, Requests: 160, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
		OTelUntraced: 0.25, OTelDuplicate: true, ClockOddities: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(Options{Run: dir})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if len(d.Requests) != sum.Profiling {
		t.Fatalf("%d requests, generator wrote %d profiling rows", len(d.Requests), sum.Profiling)
	}
	if d.Audit["duplicate_spans"] != sum.Spans {
		t.Fatalf("duplicate_spans %d, the replica holds %d", d.Audit["duplicate_spans"], sum.Spans)
	}
	// Every request finds its own evidence, in the dataset and at its chunk
	// and slot in the report's layout; the run spans several chunks,
	// encoded in parallel.
	core, err := catalog.Open(catalog.Encode(d))
	if err != nil {
		t.Fatal(err)
	}
	evidence := evidenceOf(t, d)
	if err := core.AttachEvidence(streamedShard(t, d)); err != nil {
		t.Fatal(err)
	}
	if len(core.ServerChunks) < 2 {
		t.Fatalf("%d server chunks; the test needs several", len(core.ServerChunks))
	}
	for k, i := range core.Server.Request {
		r := d.Requests[i]
		if evidence[r.Server.Evidence].Client.ID != r.ID {
			t.Fatalf("%s: evidence %d belongs to another request", r.ID, r.Server.Evidence)
		}
		raw, err := core.ServerChunk(int(core.Server.Chunk[k]))
		if err != nil {
			t.Fatal(err)
		}
		c, err := catalog.DecodeEvidenceChunk(raw)
		if err != nil {
			t.Fatal(err)
		}
		if j, err := c.Request(int(core.Server.Slot[k])); err != nil || j.Client.ID != r.ID {
			t.Fatalf("%s: chunk %d slot %d holds another request (%v)", r.ID, core.Server.Chunk[k], core.Server.Slot[k], err)
		}
	}
	odd := map[string]bool{}
	oddKind := map[string]string{}
	for _, o := range sum.Oddities {
		odd[o.ClientID] = true
		oddKind[o.ClientID] = o.Kind
	}
	var traced, untraced, suppressed int
	for _, r := range d.Requests {
		if r.Server == nil || r.Server.SpanCount == 0 {
			untraced++
			if r.Server != nil && r.Server.LifecycleAvailable {
				t.Fatalf("%s: a lifecycle without spans", r.ID)
			}
			continue
		}
		traced++
		var detail struct {
			Lifecycle struct {
				Available bool
				Issues    []string
				Stages    []struct{ Start, End float64 }
			}
		}
		if err := json.Unmarshal(serverDetail(t, d, r), &detail); err != nil {
			t.Fatal(err)
		}
		lc := detail.Lifecycle
		if odd[r.ID] && oddKind[r.ID] == "non-monotonic" {
			// An admission that ends before its route is selected only
			// reorders milestones: chronological order asserts no causality
			// (the reference's rule), so the partition stays, contiguous.
			for k := 1; k < len(lc.Stages); k++ {
				if lc.Stages[k].Start != lc.Stages[k-1].End {
					t.Errorf("%s: stages not contiguous at %d", r.ID, k)
				}
			}
			suppressed++
			continue
		}
		if odd[r.ID] {
			if len(lc.Issues) == 0 {
				t.Errorf("%s: the planted %s oddity raised no issue: %+v", r.ID, oddKind[r.ID], lc)
			}
			suppressed++
			continue
		}
		if r.FirstNS == nil || r.Status != "completed" {
			continue
		}
		if !lc.Available || len(lc.Issues) != 0 {
			t.Errorf("%s: clean traced request without a clean lifecycle: %+v", r.ID, lc.Issues)
			continue
		}
		total := 0.0
		for _, st := range lc.Stages {
			total += st.End - st.Start
		}
		if want := float64(r.EndNS-r.StartNS) / 1e9; total < want-1e-6 || total > want+1e-6 {
			t.Errorf("%s: stages sum to %v, request lasts %v", r.ID, total, want)
		}
	}
	if untraced < sum.Untraced || traced == 0 || suppressed != len(sum.Oddities) {
		t.Fatalf("traced %d, untraced %d (generator: %d), oddities seen %d of %d", traced, untraced, sum.Untraced, suppressed, len(sum.Oddities))
	}
	if d.Audit["clients_with_lifecycle"] == 0 {
		t.Fatalf("audit: %v", d.Audit)
	}
}
