package importer

import (
	"fmt"
	"io"

	"github.com/dsight/dsight/internal/batchobs"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/sourcename"
)

// Batch observations (TRT-LLM iteration records, TokenSpeed batch
// snapshots) come from the worker logs the server reader already reads:
// the scanner is one more reader of the log's single pass.

// LimitUnalignedBatch is said when observations were kept without a time.
const LimitUnalignedBatch = "Iteration and batch snapshot timestamps are worker-local without an offset; without --iteration-timezone they are kept unaligned (start and end null) and left out of range queries."

// batchReader returns the reader of a worker log's batch observations, one
// of those the log's single pass feeds: it scans the whole log and keeps
// the file's observations.
func (res *Result) batchReader(id sourcename.Identity, rel string) func(io.Reader) error {
	return func(r io.Reader) error {
		scan := batchobs.NewScanner(batchobs.Source{Path: rel, Worker: id.Worker, Host: id.Host, Role: id.Role}, res.batchLoc)
		if _, err := io.Copy(scan, r); err != nil {
			return err
		}
		res.batchParts = append(res.batchParts, scan.Finish())
		return nil
	}
}

// mergeBatch orders every worker log's observations once all are read.
func (res *Result) mergeBatch() *batchobs.Result {
	return batchobs.Merge(res.batchParts...)
}

// finishBatch keeps the observations that overlap the run window and
// accounts for every candidate line that did not become one. It runs
// before the join: an Engine ID map logged on the line of an iteration
// outside the window is dropped with it (reference-behaviour §2.5), so the
// join never sees it.
func finishBatch(d *model.Dataset, ev *serverEvidence, originNS, lastNS int64) {
	b := ev.batch
	refs := b.Clip(originNS, lastNS)
	d.BatchObservations = b.Obs
	dropped := len(refs)
	if dropped > 0 {
		out := map[model.LineRef]bool{}
		for _, r := range refs {
			out[r] = true
		}
		for k := range ev.in.WorkerLogs {
			w := &ev.in.WorkerLogs[k]
			kept := w.EngineMaps[:0]
			for _, m := range w.EngineMaps {
				if out[m.Ref] {
					d.Audit["engine_maps_outside_window"]++
					continue
				}
				kept = append(kept, m)
			}
			w.EngineMaps = kept
		}
	}
	for _, o := range b.Obs {
		switch o.Kind {
		case model.BatchTRTLLMIteration:
			d.Audit["iteration_rows"]++
		case model.BatchTokenSpeedSnapshot:
			d.Audit["batch_snapshot_rows"]++
		}
	}
	if b.Unaligned > 0 {
		d.Audit["unaligned_batch_observations"] = int64(b.Unaligned)
		d.Meta.Limitations = append(d.Meta.Limitations, LimitUnalignedBatch)
	}
	if dropped > 0 {
		d.Audit["batch_observations_outside_window"] = int64(dropped)
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d iteration/batch snapshot line(s) lie outside the run window and were not kept, nor an engine id map on the same line (first: %s)", dropped, refs[0]))
	}
	if b.Unreadable > 0 {
		d.Audit["unreadable_batch_lines"] = int64(b.Unreadable)
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d iteration/batch snapshot line(s) could not be read and were skipped (first: %s)", b.Unreadable, b.FirstUnreadable))
	}
	if b.Rejected > 0 {
		d.Audit["rejected_batch_lines"] = int64(b.Rejected)
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d iteration/batch snapshot line(s) fail validation and were dropped whole or in part (first: %s)", b.Rejected, b.FirstRejected))
	}
	if b.LongLines > 0 {
		d.Audit["long_worker_log_lines"] = int64(b.LongLines)
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d worker log line(s) over 1 MiB were not read for iterations (first: %s)", b.LongLines, b.FirstLongLine))
	}
}
