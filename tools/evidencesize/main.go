// Command evidencesize re-encodes a traced report's server evidence in
// other layouts and prints the deflated bytes of each (docs/measurements.md,
// "what the evidence's bytes are"): the records as stored, their lean
// projection (what the synchronous answers read) and its complement, 64 or
// 256 requests a chunk, deflate at the writer's level or at 9, and the
// lean records without one kind of field at a time. It measures only.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	kflate "github.com/klauspost/compress/flate"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/report"
)

type variant struct {
	name       string
	per, level int
	form       func() form
}

const def = kflate.DefaultCompression

var variants = []variant{
	{"full, 64 a chunk (as stored)", 64, def, full},
	{"full, 64, level 9", 64, 9, full},
	{"full, 256", 256, def, full},
	{"full, 256, level 9", 256, 9, full},
	{"lean, 64", 64, def, func() form { return lean(nil) }},
	{"lean, 64, level 9", 64, 9, func() form { return lean(nil) }},
	{"lean, 256", 256, def, func() form { return lean(nil) }},
	{"lean, 256, level 9", 256, 9, func() form { return lean(nil) }},
	{"complement, 64", 64, def, complement},
	{"complement, 256", 256, def, complement},
	{"lean, 64, ids as bytes", 64, def, func() form { return lean(binaryIDs) }},
	{"lean, 256, level 9, ids as bytes", 256, 9, func() form { return lean(binaryIDs) }},
	{"full, 64, ids as bytes", 64, def, fullBinary},
	{"lean, 64, without span/trace ids", 64, def, func() form { return lean(noIDs) }},
	{"lean, 64, without times", 64, def, func() form { return lean(noTimes) }},
	{"lean, 64, without span refs", 64, def, func() form { return lean(noRefs) }},
	{"lean, 64, without attributes", 64, def, func() form { return lean(noAttrs) }},
}

func main() {
	path := flag.String("report", "", "a traced report (directory)")
	read := flag.Bool("read", false, "print what a first question about a request costs at 64 and 256 a chunk instead (holds every record)")
	flag.Parse()
	if *path == "" {
		fmt.Fprintln(os.Stderr, "usage: evidencesize -report DIR")
		os.Exit(2)
	}
	c, err := report.Open(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *read {
		var all []*model.RequestEvidence
		for k := range c.ServerChunks {
			raw, err := c.ServerChunk(k)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			dec, err := catalog.DecodeEvidenceChunk(raw)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			for slot := range dec.Len() {
				r, err := dec.Request(slot)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				all = append(all, r)
			}
		}
		fmt.Println("| chunk | inflate + decode + one record, p50 | p95 |")
		fmt.Println("| --- | --- | --- |")
		readCost(all, 64)
		readCost(all, 256)
		return
	}
	stored := int64(0)
	for _, p := range c.ServerChunks {
		stored += int64(len(p))
	}
	deflated, inflated := make([]int64, len(variants)), make([]int64, len(variants))
	spent := make([]time.Duration, len(variants))
	var mu sync.Mutex
	requests := 0
	// Four stored chunks (256 requests) at a time, on two goroutines.
	groups := make(chan []*model.RequestEvidence, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range groups {
				d, n, t := encode(g)
				mu.Lock()
				for i := range d {
					deflated[i] += d[i]
					inflated[i] += n[i]
					spent[i] += t[i]
				}
				mu.Unlock()
			}
		}()
	}
	var group []*model.RequestEvidence
	for k := range c.ServerChunks {
		raw, err := c.ServerChunk(k)
		if err == nil {
			var dec *catalog.EvidenceChunk
			if dec, err = catalog.DecodeEvidenceChunk(raw); err == nil {
				for slot := range dec.Len() {
					r, err := dec.Request(slot)
					if err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
					group = append(group, r)
					requests++
				}
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if len(group) == 256 {
			groups <- group
			group = nil
		}
	}
	if len(group) > 0 {
		groups <- group
	}
	close(groups)
	wg.Wait()
	fmt.Printf("%s: %d requests, %d chunks, %d B deflated as stored\n\n", *path, requests, len(c.ServerChunks), stored)
	fmt.Println("| layout | deflated B | of stored | inflated B | encode + deflate |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for i, v := range variants {
		fmt.Printf("| %s | %d | %.1f %% | %d | %.1f s |\n", v.name, deflated[i], 100*float64(deflated[i])/float64(stored), inflated[i], spent[i].Seconds())
	}
}

// encode writes a group of requests in every variant, timing each.
func encode(group []*model.RequestEvidence) (deflated, inflated []int64, spent []time.Duration) {
	deflated, inflated = make([]int64, len(variants)), make([]int64, len(variants))
	spent = make([]time.Duration, len(variants))
	var buf bytes.Buffer
	for i, v := range variants {
		t0 := time.Now()
		fw, _ := kflate.NewWriter(&buf, v.level)
		for at := 0; at < len(group); at += v.per {
			f := v.form()
			w := catalog.NewEvidenceWriter()
			for _, r := range group[at:min(len(group), at+v.per)] {
				w.AddRequest(f(r))
			}
			raw := w.Bytes()
			buf.Reset()
			fw.Reset(&buf)
			fw.Write(raw)
			fw.Close()
			deflated[i] += int64(buf.Len())
			inflated[i] += int64(len(raw))
		}
		spent[i] += time.Since(t0)
	}
	return deflated, inflated, spent
}

// fullBinary is the stored record with hex ids as bytes.
func fullBinary() form {
	return func(r *model.RequestEvidence) *model.RequestEvidence {
		out := *r
		out.Spans = make([]model.JoinedSpan, len(r.Spans))
		for k, js := range r.Spans {
			sp := *js.Span
			js.Span = &sp
			binaryIDs(&js)
			out.Spans[k] = js
		}
		return &out
	}
}
