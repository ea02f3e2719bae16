package metrics

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/dsight/dsight/internal/pyramid"
)

// Every summarized capture row names the capture file (a registered source
// id among the series' own) and a row in it: the evidence survives the
// spill, the sort and the summary.
func TestCaptureRowsKeepTheirEvidence(t *testing.T) {
	leaf := awkwardCapture(t, false)
	_, out, err := readAwkward(t, leaf, func() (pointStore, error) { return newSpillStore(64) })
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range out {
		gz, err := b.meta.Summary.Payload.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		p, err := pyramid.DecodeShard(raw)
		if err != nil {
			t.Fatal(err)
		}
		v, err := p.Query(-1<<62, 1<<62, 1<<20)
		if err != nil || !v.Exact || len(v.Sources) != len(v.Times) {
			t.Fatalf("series %d: view %v", i, err)
		}
		own := map[int64]bool{}
		for _, s := range b.meta.SourceIDs {
			own[int64(s)] = true
		}
		for k := range v.Times {
			if !own[v.Sources[k]] || v.Lines[k] < 0 {
				t.Fatalf("series %d row %d: evidence %d:%d, series sources %v", i, k, v.Sources[k], v.Lines[k], b.meta.SourceIDs)
			}
		}
	}
}
