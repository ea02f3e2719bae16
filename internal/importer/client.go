package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dsight/dsight/internal/agentperf"
	"github.com/dsight/dsight/internal/aiperf"
	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// clientCounts are the counters both client parsers report.
type clientCounts struct {
	rows, excluded, withoutPhase, firstAfterEnd int
	warnings                                    []string
	invalidTTFT                                 int
}

// maxReportRequests is the most client requests one report holds
// (catalog.MaxRequests). Tests lower it.
var maxReportRequests = catalog.MaxRequests

// readClients reads the client export (at most one is discovered). A run
// with more requests than a report can hold is refused here, before the
// server logs and OTel exports are read: the core is written last, and
// finding out there cost a run of a million requests an hour.
func readClients(b *build, files []string) error {
	b.clients = files
	for _, path := range files {
		rs, err := b.readClient(path)
		if err != nil {
			return err
		}
		b.requests = append(b.requests, rs...)
	}
	if n := len(b.requests); n > maxReportRequests {
		return fmt.Errorf("the client export holds %d requests, more than the %d one report can hold; "+
			"split the export into parts of at most %d requests and build a report of each, naming its part with --client PATH",
			n, maxReportRequests, maxReportRequests)
	}
	return nil
}

// readClient reads one client export, AIPerf or native AgentPerf (told
// apart by the first record's shape, not the file name), registers every
// file it reads as a source, and counts what the parser kept and dropped.
func (b *build) readClient(path string) ([]model.Request, error) {
	d := b.d
	src, err := b.openSource(path, "client")
	if err != nil {
		return nil, err
	}
	defer src.close()
	native, r, err := sniffAgentPerf(src.reader())
	if err != nil {
		return nil, err
	}
	var (
		requests []model.Request
		counts   clientCounts
	)
	if native {
		requests, counts, err = b.readAgentPerf(src, r)
	} else {
		requests, counts, err = b.readAIPerf(src, r)
	}
	if err != nil {
		return nil, err
	}
	d.Meta.Warnings = append(d.Meta.Warnings, counts.warnings...)
	d.Audit["client_rows"] += int64(counts.rows)
	d.Audit["client_requests"] += int64(len(requests))
	d.Audit["excluded_client_rows"] += int64(counts.excluded)
	d.Audit["clients_without_phase"] += int64(counts.withoutPhase)
	d.Audit["client_first_after_end"] += int64(counts.firstAfterEnd)
	d.Audit["client_invalid_ttft"] += int64(counts.invalidTTFT)
	return requests, nil
}

// readAIPerf parses an AIPerf export from r, the opened src from its start.
func (b *build) readAIPerf(src *source, r io.Reader) ([]model.Request, clientCounts, error) {
	d := b.d
	out, err := aiperf.Parse(r, aiperf.Options{File: src.rel, SourceID: src.id, Phase: b.opt.Phase})
	if err != nil {
		return nil, clientCounts{}, err
	}
	if err := b.finishSource(src); err != nil {
		return nil, clientCounts{}, err
	}
	switch out.Schema {
	case aiperf.SchemaLegacy:
		d.Meta.ClientKind = "aiperf-legacy"
	case aiperf.SchemaCurrent:
		d.Meta.ClientKind = "aiperf"
	}
	return out.Requests, clientCounts{out.Rows, out.Excluded, out.WithoutPhase, out.FirstAfterEnd, out.Warnings, out.InvalidTTFT}, nil
}

// readAgentPerf reads a native AgentPerf request log (reqs, read from r)
// with its phase manifest and phase-analysis files, each registered as its
// own source.
func (b *build) readAgentPerf(reqs *source, r io.Reader) ([]model.Request, clientCounts, error) {
	d := b.d
	manifest, analyses, err := agentperf.Companions(reqs.path)
	if err != nil {
		return nil, clientCounts{}, err
	}
	opened := []*source{reqs}
	defer func() {
		for _, s := range opened[1:] {
			s.close()
		}
	}()
	open := func(p, kind string) (*source, error) {
		s, err := b.openSource(p, kind)
		if err == nil {
			opened = append(opened, s)
		}
		return s, err
	}
	in := agentperf.Inputs{Requests: agentperf.Input{Path: reqs.rel, SourceID: reqs.id, Reader: r}}
	if manifest != "" {
		m, err := open(manifest, "agentperf_phase_manifest")
		if err != nil {
			return nil, clientCounts{}, err
		}
		in.Manifest = &agentperf.Input{Path: m.rel, SourceID: m.id, Reader: m.reader()}
	}
	for _, a := range analyses {
		n, _ := agentperf.AnalysisPhase(filepath.Base(a))
		s, err := open(a, "agentperf_phase_analysis")
		if err != nil {
			return nil, clientCounts{}, err
		}
		in.Analyses = append(in.Analyses, agentperf.Analysis{Input: agentperf.Input{Path: s.rel, SourceID: s.id, Reader: s.reader()}, Phase: n})
	}
	out, err := agentperf.Parse(in, agentperf.Options{Phase: b.opt.Phase})
	if err != nil {
		return nil, clientCounts{}, err
	}
	for _, s := range opened {
		if err := b.finishSource(s); err != nil {
			return nil, clientCounts{}, err
		}
	}
	d.Meta.ClientKind = agentperf.ClientKind
	d.Audit["liveness_only_client_timings"] += int64(out.LivenessOnly)
	d.Audit["unmatched_agentperf_analysis"] += int64(out.UnmatchedAnalysis)
	return out.Requests, clientCounts{out.Rows, out.Excluded, out.WithoutPhase, out.FirstAfterEnd, out.Warnings, out.InvalidTTFT}, nil
}

// sniffAgentPerf reports whether the export's first record is a native
// AgentPerf row. It reads through r, which the caller opened for the
// parser, and returns a reader that replays what it consumed, so the file
// is read once.
func sniffAgentPerf(r io.Reader) (bool, io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var head []byte
	for {
		line, err := br.ReadSlice('\n')
		head = append(head, line...)
		if t := bytes.TrimSpace(line); len(t) > 0 || err != nil {
			if err == bufio.ErrBufferFull {
				err = nil // a long first line: its start is enough to tell
			}
			return len(t) > 0 && agentperf.IsNativeRow(t), io.MultiReader(bytes.NewReader(head), br), ignoreEOF(err)
		}
	}
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}
