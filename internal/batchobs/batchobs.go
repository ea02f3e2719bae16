// Package batchobs turns the iteration and batch snapshot lines of worker
// logs into the run's one collection of model.BatchObservation: TRT-LLM
// iteration records (internal/trtllm) and TokenSpeed periodic snapshots
// (internal/tokenspeed, the same grammar its metric generator reads).
//
// It owns what the decoders leave out: the file's identity (worker, host,
// role from the file name), line evidence, timezone alignment and the
// accounting of every candidate line that does not become an observation.
// A naive local timestamp is aligned only with an explicit location (the
// build's --iteration-timezone); without one the observation is kept with
// a null start and counted as unaligned, never guessed. Counters stay as
// logged: nothing is shifted, and nothing is assigned to requests.
//
// The Scanner is an io.Writer so the importer can feed it the bytes it
// already reads for another reader of the same file: each worker log is
// read once.
package batchobs

import (
	"bytes"
	"fmt"
	"sort"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/tokenspeed"
	"github.com/dsight/dsight/internal/trtllm"
)

// maxLine bounds one buffered physical line; longer lines (dumped prompts)
// are skipped and counted, never buffered whole.
const maxLine = 1 << 20

// Source identifies the worker log, from its file name.
type Source struct {
	Path               string // as evidence shows it
	Worker, Host, Role string
}

// Result is what one or more worker logs held.
type Result struct {
	Obs []model.BatchObservation
	// Unaligned counts observations kept without a start (naive timestamp,
	// no timezone).
	Unaligned int
	// Unreadable counts candidate lines that could not be read; First names
	// the first of them with its reason.
	Unreadable      int
	FirstUnreadable string
	// LongLines counts lines over 1 MiB that were skipped.
	LongLines     int
	FirstLongLine string
	// Rejected counts snapshots kept with a field left null because its
	// value fails validation, and a recognised last line without its
	// newline (kept, but its last value may be cut short); FirstRejected
	// names the first with its reason.
	Rejected      int
	FirstRejected string
}

// Scanner reads one worker log written to it in any chunking.
type Scanner struct {
	src  Source
	loc  *time.Location
	line int64
	buf  []byte
	long bool // the current line exceeded maxLine
	torn bool // the current line is the last and has no newline
	res  Result
}

// NewScanner reads src's lines; loc aligns naive timestamps (nil: none).
func NewScanner(src Source, loc *time.Location) *Scanner {
	return &Scanner{src: src, loc: loc}
}

// Write implements io.Writer; it never fails.
func (s *Scanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.take(p)
			break
		}
		s.take(p[:i])
		s.endLine()
		p = p[i+1:]
	}
	return n, nil
}

func (s *Scanner) take(p []byte) {
	if s.long {
		return
	}
	if len(s.buf)+len(p) > maxLine {
		s.long, s.buf = true, s.buf[:0]
		return
	}
	s.buf = append(s.buf, p...)
}

func (s *Scanner) endLine() {
	s.line++
	if s.long {
		s.res.LongLines++
		if s.res.FirstLongLine == "" {
			s.res.FirstLongLine = fmt.Sprintf("%s:%d", s.src.Path, s.line)
		}
		s.long = false
		return
	}
	s.decode(bytes.TrimSuffix(s.buf, []byte{'\r'}))
	s.buf = s.buf[:0]
}

// Finish reads a last line without a newline and returns what the log held.
func (s *Scanner) Finish() *Result {
	if len(s.buf) > 0 || s.long {
		s.torn = true
		s.endLine()
	}
	return &s.res
}

func (s *Scanner) reject(why string) {
	s.res.Rejected++
	if s.res.FirstRejected == "" {
		s.res.FirstRejected = fmt.Sprintf("%s:%d: %s", s.src.Path, s.line, why)
	}
}

// tornLine is the warning for a recognised last line without a newline,
// worded as the log-metric reader words it (kept as logged, counted).
const tornLine = logmetric.TornLastLine

func (s *Scanner) unreadable(err error) {
	s.res.Unreadable++
	if s.res.FirstUnreadable == "" {
		s.res.FirstUnreadable = fmt.Sprintf("%s:%d: %v", s.src.Path, s.line, err)
	}
}

func (s *Scanner) decode(line []byte) {
	if it, ok, err := trtllm.Decode(line); err != nil {
		s.unreadable(err)
		return
	} else if ok {
		if s.torn {
			s.reject(tornLine)
		}
		s.add(it.Obs, it.Stamp)
		return
	}
	snap, ok, err := tokenspeed.DecodeSnapshot(line)
	if err != nil {
		s.unreadable(err)
		return
	}
	if ok {
		switch {
		case snap.Dropped != "":
			s.reject(snap.Dropped)
		case s.torn:
			s.reject(tornLine)
		}
		s.add(snapshotObservation(snap), snap.Stamp)
	}
}

func snapshotObservation(snap tokenspeed.Snapshot) model.BatchObservation {
	rank := int64(snap.Rank)
	kind := "prefill"
	if snap.Decode {
		kind = "decode"
	}
	o := model.BatchObservation{
		Kind: model.BatchTokenSpeedSnapshot, Format: "tokenspeed",
		Rank: &rank, RankKind: model.RankAttentionTP, BatchKind: &kind, LocalTime: snap.LocalTime,
	}
	o.Ints[model.BatchRunning], o.Ints[model.BatchQueued] = snap.Running, snap.Queued
	o.Ints[model.BatchNewSeq], o.Ints[model.BatchNewToken], o.Ints[model.BatchCachedToken] = snap.NewSeq, snap.NewToken, snap.CachedToken
	o.Ints[model.BatchPagesActive], o.Ints[model.BatchPagesCached], o.Ints[model.BatchPagesTotal] = snap.PagesActive, snap.PagesCached, snap.PagesTotal
	o.Floats[model.BatchPageRatio], o.Floats[model.BatchGenThroughput] = snap.PageRatio, snap.GenThroughput
	o.Floats[model.BatchAvgAcceptLen], o.Floats[model.BatchAcceptRate] = snap.AvgAcceptLen, snap.AcceptRate
	return o
}

func (s *Scanner) add(o model.BatchObservation, st logmetric.Stamp) {
	ns, aligned, err := st.EpochNS(s.loc)
	if err != nil {
		s.unreadable(err)
		return
	}
	o.Worker, o.Host, o.Role = s.src.Worker, s.src.Host, s.src.Role
	o.FracDigits = st.FracDigits
	if aligned {
		o.StartNS = &ns
	} else {
		s.res.Unaligned++
	}
	o.Evidence = model.LineRef{Path: s.src.Path, Line: s.line}
	s.res.Obs = append(s.res.Obs, o)
}

// Merge joins per-file results and orders the observations: aligned ones
// by (start, worker, rank, path, line), then the unaligned ones by (path,
// line).
func Merge(parts ...*Result) *Result {
	out := &Result{}
	for _, p := range parts {
		out.Obs = append(out.Obs, p.Obs...)
		out.Unaligned += p.Unaligned
		out.Unreadable += p.Unreadable
		out.LongLines += p.LongLines
		out.Rejected += p.Rejected
		if out.FirstRejected == "" {
			out.FirstRejected = p.FirstRejected
		}
		if out.FirstUnreadable == "" {
			out.FirstUnreadable = p.FirstUnreadable
		}
		if out.FirstLongLine == "" {
			out.FirstLongLine = p.FirstLongLine
		}
	}
	sort.SliceStable(out.Obs, func(i, j int) bool { return less(&out.Obs[i], &out.Obs[j]) })
	return out
}

func less(a, b *model.BatchObservation) bool {
	if (a.StartNS == nil) != (b.StartNS == nil) {
		return a.StartNS != nil
	}
	if a.StartNS != nil && *a.StartNS != *b.StartNS {
		return *a.StartNS < *b.StartNS
	}
	if a.StartNS != nil {
		if a.Worker != b.Worker {
			return a.Worker < b.Worker
		}
		ra, rb := rankOr(a), rankOr(b)
		if ra != rb {
			return ra < rb
		}
	}
	if a.Evidence.Path != b.Evidence.Path {
		return a.Evidence.Path < b.Evidence.Path
	}
	return a.Evidence.Line < b.Evidence.Line
}

func rankOr(o *model.BatchObservation) int64 {
	if o.Rank == nil {
		return -1
	}
	return *o.Rank
}

// Clip keeps the observations that overlap [originNS, lastNS]: an aligned
// observation whose [start, start+resolution) ends before the origin or
// starts after the last instant is dropped; unaligned ones are kept. It
// returns the lines of the dropped ones, in order.
func (r *Result) Clip(originNS, lastNS int64) (dropped []model.LineRef) {
	kept := r.Obs[:0]
	for _, o := range r.Obs {
		if o.StartNS != nil && (*o.StartNS+o.ResolutionNS() < originNS || *o.StartNS > lastNS) {
			dropped = append(dropped, o.Evidence)
			continue
		}
		kept = append(kept, o)
	}
	r.Obs = kept
	return dropped
}

// Window is the envelope of the aligned observations, [first start, last
// start + resolution]; ok is false when none is aligned. It frames runs
// without a client export.
func (r *Result) Window() (lo, hi int64, ok bool) {
	for _, o := range r.Obs {
		if o.StartNS == nil {
			continue
		}
		a, b := *o.StartNS, *o.StartNS+o.ResolutionNS()
		if !ok {
			lo, hi, ok = a, b, true
			continue
		}
		lo, hi = min(lo, a), max(hi, b)
	}
	return lo, hi, ok
}
