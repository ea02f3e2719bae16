package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/sqlstore"
	"github.com/dsight/dsight/tools/gen/synth"
	"github.com/dsight/dsight/web"
)

// streamedReportGolden pins the report of the run below as the in-memory
// import wrote it before the build streamed its server evidence: the
// SHA-256 of the core and evidence payloads (as stored: gzip or identity)
// and of trace-data.sqlite. The page and engine files are left out: they
// change with the page, not with how the build holds its evidence. The
// core and store were re-pinned since for the in-flight family's
// within-role stack marks and role labels; the evidence was re-pinned
// when it was split into independent evidence shards (report format 5:
// the hash is over the shards' payloads in order), its chunks unchanged
// (internal/report TestEvidenceShardsHoldTheWholeShardsChunks). The store
// was re-pinned when requests, lifecycle_stages, worker_bindings and
// their indexes and server_spans' indexes were laid out as full b-tree
// pages: its pages changed, its `sqlite3 .dump` (25,109 lines) did not.
// The core was re-pinned when it was stored framed (report format 6: the
// hash is over its frames as stored), its raw shard unchanged. The store
// was re-pinned when nvtx_ranges came to compute its end from duration_ns:
// this run has no Nsight profile, and its `sqlite3 .dump` differs only in
// that table's CREATE TABLE. The core was re-pinned when metric summaries
// came to be deflated at level 3: its 32 series name other summary
// payloads (ids, bytes, parts), and the cores opened (report.Open) are
// otherwise equal, every summary's bounds and decoded bytes included. The
// evidence was re-pinned when its shards were cut at a quarter MiB (report
// format 7: more, smaller shards, so other payloads in order), its chunks
// unchanged (the same test). The core was re-pinned when metric summaries
// came to share pack scripts (report format 8): its series' parts name
// their packs, its parts table gained the pack column, and every summary's
// id, bytes and decoded bytes are unchanged. The evidence was re-pinned
// when its shards were cut at an eighth of a MiB (more, smaller shards, so
// other payloads in order), its chunks unchanged (the same test), and again
// at a sixteenth. Both were re-pinned when an evidence chunk came to hold
// 32 records (report format 10), its shards two such chunks.
var streamedReportGolden = struct{ core, evidence, store string }{
	core:     "e55d34cbce13db8395061d64416948fe14057352210a8a972fe2c2d39bb531bb",
	evidence: "d44fd4a4a025f636f3a6d97ecbbc36a671c2a9a00324f5d2253959e33ae6c4e8",
	store:    "f8b4a0722f525950e6af80a77494c61ad81019696335d05eff2c75d345565c5d",
}

// The build streams its server evidence; the report's shards and
// trace-data.sqlite are byte for byte the ones the in-memory import gave.
func TestStreamedBuildWritesTheHeldReport(t *testing.T) {
	needAssets(t)
	run := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(run, synth.Config{
		Seed: 11, Requests: 400, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
		OTelUntraced: 0.1, OTelDuplicate: true, ClockOddities: true,
	}); err != nil {
		t.Fatal(err)
	}
	res, err := importer.Import(importer.Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dataset.Evidence) != 0 {
		t.Fatal("the import holds its evidence records")
	}
	res.Dataset.Meta.SourceRoot = "run" // the only absolute path: the test's temporary directory
	out := filepath.Join(t.TempDir(), "report")
	if _, err := report.Write(res.Dataset, web.Assets(), out, report.Options{Store: sqlstore.WriteFile}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Entry report.Entry }
	if err := json.Unmarshal(raw, &m); err != nil || m.Entry.Evidence == nil {
		t.Fatalf("manifest entry %+v: %v", m.Entry, err)
	}
	store, err := os.ReadFile(filepath.Join(out, sqlstore.File))
	if err != nil {
		t.Fatal(err)
	}
	got := streamedReportGolden
	got.core, got.evidence, got.store = m.Entry.Core.ID, m.Entry.Evidence.ID, fmt.Sprintf("%x", sha256.Sum256(store))
	if got != streamedReportGolden {
		t.Fatalf("the report changed:\n%+v\nwant\n%+v", got, streamedReportGolden)
	}
}
