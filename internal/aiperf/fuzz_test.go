package aiperf

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 16<<10 { // keep mutation cheap: a few real lines suffice
			data = bytes.Join(bytes.SplitN(data, []byte("\n"), 4)[:3], []byte("\n"))
		}
		f.Add(data, false)
		if first, _, ok := bytes.Cut(data, []byte("\n")); ok {
			f.Add(first, true)
		}
	}
	f.Add([]byte(okRow), true)
	f.Fuzz(func(t *testing.T, data []byte, all bool) {
		defer fuzzlimit.Start(t)()
		opt := Options{File: "f.jsonl", MaxLineBytes: 1 << 16}
		if all {
			opt.Phase = PhaseAll
		}
		res, err := Parse(bytes.NewReader(data), opt)
		if err != nil {
			return
		}
		if len(res.Requests)+res.Excluded != res.Rows {
			t.Fatalf("%d requests + %d excluded != %d rows", len(res.Requests), res.Excluded, res.Rows)
		}
		seen := map[string]bool{}
		after := 0
		for _, r := range res.Requests {
			if r.StartNS <= 0 || r.EndNS < r.StartNS {
				t.Fatalf("request %q: start %d end %d", r.ID, r.StartNS, r.EndNS)
			}
			if r.FirstNS != nil && (*r.FirstNS < r.StartNS || r.TTFTms == nil) {
				t.Fatalf("request %q: first %d before start %d or without TTFT", r.ID, *r.FirstNS, r.StartNS)
			}
			if seen[r.ID] {
				t.Fatalf("duplicate id %q accepted", r.ID)
			}
			seen[r.ID] = true
			for _, issue := range r.Issues {
				if issue == IssueFirstAfterEnd {
					after++
				}
			}
		}
		if after != res.FirstAfterEnd {
			t.Fatalf("FirstAfterEnd %d, issues %d", res.FirstAfterEnd, after)
		}
		// Cutting the last record short must not go unnoticed.
		if res.Rows > 0 {
			end := len(bytes.TrimRight(data, " \t\r\n\v\f"))
			if _, err := Parse(bytes.NewReader(data[:end-1]), opt); err == nil {
				t.Fatalf("truncated input accepted")
			}
		}
	})
}
