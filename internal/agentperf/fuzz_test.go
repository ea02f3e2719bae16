package agentperf

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

func FuzzParse(f *testing.F) {
	for _, tc := range goldenCases {
		dir := filepath.Join("testdata", tc.dir)
		requests, _ := os.ReadFile(filepath.Join(dir, "requests.jsonl"))
		manifest, _ := os.ReadFile(filepath.Join(dir, ManifestName))
		var analysis []byte
		if _, files, _ := Companions(filepath.Join(dir, "requests.jsonl")); len(files) > 0 {
			analysis, _ = os.ReadFile(files[0])
		}
		f.Add(requests, manifest, analysis)
	}
	f.Add([]byte(rawRow), []byte(manifestRow), []byte(rawRow))
	f.Fuzz(func(t *testing.T, requests, manifest, analysis []byte) {
		defer fuzzlimit.Start(t)()
		build := func(requests []byte) Inputs {
			in := Inputs{Requests: Input{Path: "requests.jsonl", Reader: bytes.NewReader(requests)}}
			if len(manifest) > 0 {
				in.Manifest = &Input{Path: ManifestName, SourceID: 1, Reader: bytes.NewReader(manifest)}
			}
			in.Analyses = []Analysis{{Input: Input{Path: "a__phase0__traj1.jsonl", SourceID: 2, Reader: bytes.NewReader(analysis)}}}
			return in
		}
		opt := Options{Phase: PhaseAll, MaxLineBytes: 1 << 16}
		res, err := Parse(build(requests), opt)
		if err != nil {
			return
		}
		if len(res.Requests)+res.Excluded != res.Rows {
			t.Fatalf("%d requests + %d excluded != %d rows", len(res.Requests), res.Excluded, res.Rows)
		}
		seen := map[string]bool{}
		for _, r := range res.Requests {
			if r.StartNS <= 0 || r.EndNS < r.StartNS || (r.FirstNS != nil && *r.FirstNS < r.StartNS) {
				t.Fatalf("request %q: start %d end %d first %v", r.ID, r.StartNS, r.EndNS, r.FirstNS)
			}
			if seen[r.ID] {
				t.Fatalf("duplicate id %q accepted", r.ID)
			}
			seen[r.ID] = true
			if (r.TimingQuality == TimingAnalysis) != (r.IdentityEvidence != nil) {
				t.Fatalf("request %q: timing %q with identity evidence %v", r.ID, r.TimingQuality, r.IdentityEvidence)
			}
			if (r.CachedTokens == nil) != (r.CacheUsageEvidence == nil) {
				t.Fatalf("request %q: cache usage without evidence or the reverse", r.ID)
			}
		}
		if res.Rows > 0 {
			end := len(bytes.TrimRight(requests, " \t\r\n\v\f"))
			if _, err := Parse(build(requests[:end-1]), opt); err == nil {
				t.Fatal("truncated request log accepted")
			}
		}
	})
}
