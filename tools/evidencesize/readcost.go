package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"time"

	kflate "github.com/klauspost/compress/flate"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// readCost prints what a first question about a request costs the reader
// with per requests a chunk: inflate the chunk, decode its tables and one
// record (as the engine does on a chunk it has not cached), per chunk,
// p50 and p95, natively.
func readCost(all []*model.RequestEvidence, per int) {
	var times []time.Duration
	var buf bytes.Buffer
	fw, _ := kflate.NewWriter(&buf, def)
	for at := 0; at < len(all); at += per {
		w := catalog.NewEvidenceWriter()
		for _, r := range all[at:min(len(all), at+per)] {
			w.AddRequest(r)
		}
		raw := w.Bytes()
		buf.Reset()
		fw.Reset(&buf)
		fw.Write(raw)
		fw.Close()
		stored := buf.Bytes()
		t0 := time.Now()
		out := make([]byte, len(raw))
		r := kflate.NewReader(bytes.NewReader(stored))
		if _, err := io.ReadFull(r, out); err != nil {
			panic(err)
		}
		c, err := catalog.DecodeEvidenceChunk(out)
		if err != nil {
			panic(err)
		}
		if _, err := c.Request(c.Len() / 2); err != nil {
			panic(err)
		}
		times = append(times, time.Since(t0))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	fmt.Printf("| %d a chunk | %.2f ms | %.2f ms |\n", per, ms(times[len(times)/2]), ms(times[len(times)*95/100]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
