package importer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/dsight/dsight/internal/agentperf"
	"github.com/dsight/dsight/internal/aiperf"
	"github.com/dsight/dsight/internal/lineread"
	"github.com/dsight/dsight/internal/model"
)

// clientCounts are the counters both client parsers report.
type clientCounts struct {
	rows, excluded, withoutPhase, firstAfterEnd int
	warnings                                    []string
}

// readClient reads one client export, AIPerf or native AgentPerf (told
// apart by the first record's shape, not the file name), registers every
// file it reads as a source, and counts what the parser kept and dropped.
func (res *Result) readClient(d *model.Dataset, root, path, phase string, claimed map[string]bool) ([]model.Request, error) {
	native, err := isAgentPerf(path)
	if err != nil {
		return nil, err
	}
	var (
		requests []model.Request
		counts   clientCounts
	)
	if native {
		requests, counts, err = res.readAgentPerf(d, root, path, phase, claimed)
	} else {
		requests, counts, err = res.readAIPerf(d, root, path, phase)
		claimed[path] = true
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
	return requests, nil
}

func (res *Result) readAIPerf(d *model.Dataset, root, path, phase string) ([]model.Request, clientCounts, error) {
	src, err := res.open(d, root, path, "client")
	if err != nil {
		return nil, clientCounts{}, err
	}
	defer src.close()
	out, err := aiperf.Parse(src.reader(), aiperf.Options{File: src.rel, SourceID: src.id, Phase: phase})
	if err != nil {
		return nil, clientCounts{}, err
	}
	if err := res.finishSource(d, src); err != nil {
		return nil, clientCounts{}, err
	}
	switch out.Schema {
	case aiperf.SchemaLegacy:
		d.Meta.ClientKind = "aiperf-legacy"
	case aiperf.SchemaCurrent:
		d.Meta.ClientKind = "aiperf"
	}
	return out.Requests, clientCounts{out.Rows, out.Excluded, out.WithoutPhase, out.FirstAfterEnd, out.Warnings}, nil
}

// readAgentPerf reads a native AgentPerf request log with its phase
// manifest and phase-analysis files, each registered as its own source.
func (res *Result) readAgentPerf(d *model.Dataset, root, path, phase string, claimed map[string]bool) ([]model.Request, clientCounts, error) {
	manifest, analyses, err := agentperf.Companions(path)
	if err != nil {
		return nil, clientCounts{}, err
	}
	var opened []*source
	defer func() {
		for _, s := range opened {
			s.close()
		}
	}()
	open := func(p, kind string) (*source, error) {
		s, err := res.open(d, root, p, kind)
		if err == nil {
			opened = append(opened, s)
		}
		return s, err
	}
	reqs, err := open(path, "client")
	if err != nil {
		return nil, clientCounts{}, err
	}
	in := agentperf.Inputs{Requests: agentperf.Input{Path: reqs.rel, SourceID: reqs.id, Reader: reqs.reader()}}
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
	out, err := agentperf.Parse(in, agentperf.Options{Phase: phase})
	if err != nil {
		return nil, clientCounts{}, err
	}
	for _, s := range opened {
		if err := res.finishSource(d, s); err != nil {
			return nil, clientCounts{}, err
		}
		claimed[s.path] = true
	}
	d.Meta.ClientKind = agentperf.ClientKind
	d.Audit["liveness_only_client_timings"] += int64(out.LivenessOnly)
	d.Audit["unmatched_agentperf_analysis"] += int64(out.UnmatchedAnalysis)
	return out.Requests, clientCounts{out.Rows, out.Excluded, out.WithoutPhase, out.FirstAfterEnd, out.Warnings}, nil
}

// isAgentPerf reports whether the export's first record is a native
// AgentPerf row.
func isAgentPerf(path string) (bool, error) {
	f, err := lineread.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	for {
		line, err := r.ReadSlice('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 || err != nil {
			if err == bufio.ErrBufferFull {
				err = nil // a long first line: its start is enough to tell
			}
			return len(t) > 0 && agentperf.IsNativeRow(t), ignoreEOF(err)
		}
	}
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// source is one evidence file being read: it is hashed while the parser
// reads it and registered once the parser is done.
type source struct {
	id        int
	path, rel string
	kind      string
	f         *os.File
	st        os.FileInfo
	h         hash.Hash
}

func (res *Result) open(d *model.Dataset, root, path, kind string) (*source, error) {
	f, err := lineread.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	// Ids are handed out at open time so evidence refers to them while
	// parsing; the record itself is appended in finish, in id order.
	id := len(d.Sources) + res.pending
	res.pending++
	return &source{id: id, path: path, rel: relative(root, path), kind: kind, f: f, st: st, h: sha256.New()}, nil
}

func (s *source) reader() io.Reader { return io.TeeReader(s.f, s.h) }

func (s *source) close() { s.f.Close() }

// finish hashes whatever the parser did not need to read and registers the
// source with the size and time it had when opened (Verify rechecks them).
func (res *Result) finishSource(d *model.Dataset, s *source) error {
	if _, err := io.Copy(s.h, s.f); err != nil {
		return err
	}
	res.pending--
	res.stamps = append(res.stamps, stamp{path: s.path, size: s.st.Size(), modTime: s.st.ModTime().UnixNano(), changeTime: changeTime(s.st)})
	d.Sources = append(d.Sources, model.Source{ID: s.id, Path: s.rel, Kind: s.kind, Bytes: s.st.Size(), SHA256: hex.EncodeToString(s.h.Sum(nil))})
	return nil
}
