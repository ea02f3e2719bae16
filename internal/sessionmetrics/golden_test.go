package sessionmetrics

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/golden"
	"github.com/dsight/dsight/internal/model"
)

// goldenRun is a mixed run: three phases (one of them warmup), server
// workers on some requests, errors, cancellations, unknown first tokens,
// TTFTs and token counts, zero-length requests, shared start and end
// times, and a first token outside its request.
func goldenRun() *model.Dataset {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 6000
	d := &model.Dataset{Requests: make([]model.Request, n)}
	phases := []string{"warmup", "profiling", "cooldown"}
	workers := []string{"decode-0", "decode-1", "prefill-0"}
	var last int64
	for i := range d.Requests {
		start := int64(rng.IntN(1200)) * 25e7 // shared times on a 250 ms grid
		lat := int64(rng.IntN(40)) * 1e8
		r := model.Request{ID: strconv.Itoa(i), StartNS: start, EndNS: start + lat, Status: model.StatusCompleted}
		switch rng.IntN(40) {
		case 0:
			r.Status = model.StatusError
		case 1:
			r.Status = model.StatusCancelled
		}
		if k := rng.IntN(8); k < len(phases) {
			r.Phase = &phases[k]
		} else if k < 7 {
			r.Phase = &phases[1]
		}
		if rng.IntN(5) > 0 {
			first := start + lat/int64(2+rng.IntN(5))
			if rng.IntN(50) == 0 {
				first = start - 1 // outside the request
			}
			ttft := float64(first-start) / 1e6
			r.FirstNS, r.TTFTms = &first, &ttft
		} else if rng.IntN(3) == 0 {
			ttft := float64(rng.IntN(900)) + 0.5 // a TTFT without a first-token time
			r.TTFTms = &ttft
		}
		if rng.IntN(6) > 0 {
			v := int64(rng.IntN(5000))
			r.InputTokens = &v
		}
		if rng.IntN(6) > 0 {
			v := int64(rng.IntN(700))
			r.OutputTokens = &v
		}
		if rng.IntN(3) == 0 {
			r.Server = &model.RequestServer{Workers: []string{workers[rng.IntN(2)]}}
			if rng.IntN(2) == 0 {
				r.Server.Workers = append(r.Server.Workers, workers[2])
			}
		}
		r.Evidence = model.Ref{Source: rng.IntN(2), Line: int64(i + 1)}
		d.Requests[i] = r
		last = max(last, r.EndNS)
	}
	d.Meta.DurationNS = last + 3e8
	return d
}

// Every derived family and series of a mixed run, with a digest of each
// summary's bytes, is the golden one: a change to how the series are
// computed must leave every answer as it was.
func TestDeriveGolden(t *testing.T) {
	fams, ms, err := Derive(goldenRun())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range fams {
		fmt.Fprintf(&b, "family %s series=%d samples=%d\n", f.Name, f.SeriesCount, f.Samples)
	}
	for _, m := range ms {
		raw, err := m.Summary.Payload.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		sum := *m.Summary
		sum.Payload = nil
		m.Summary = &sum
		meta, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s\n  summary sha256 %x\n", meta, sha256.Sum256(raw))
	}
	golden.Check(t, filepath.Join("testdata", "derive-golden.txt"), []byte(b.String()))
}
