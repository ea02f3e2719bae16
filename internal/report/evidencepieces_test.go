package report

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

// tracedDataset is n traced requests whose evidence barely deflates (a
// random trace state per span), so that it fills several evidence shards.
func tracedDataset(n int) *model.Dataset {
	d := dataset("traced")
	d.Meta.OTelEnabled = true
	d.Requests = nil
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 6000)
	for i := range n {
		start := d.Meta.OriginNS + int64(i)*1e6
		id := fmt.Sprintf("r%05d", i)
		d.Requests = append(d.Requests, model.Request{
			ID: id, Session: "s", Agent: "s", StartNS: int64(i) * 1e6, EndNS: int64(i)*1e6 + 5e5, Status: "completed",
			Evidence: model.Ref{Line: int64(i + 1)},
			Server:   &model.RequestServer{Workers: []string{"decode-0"}, SpanCount: 1, Evidence: i},
		})
		for k := range noise {
			noise[k] = byte(rng.Uint32())
		}
		d.Evidence = append(d.Evidence, model.RequestEvidence{
			Client: model.ClientTiming{ID: id, StartNS: start, EndNS: start + 5e5, Evidence: model.LineRef{Path: "logs/profile_export.jsonl", Line: int64(i + 1)}},
			Spans: []model.JoinedSpan{{Span: &model.Span{
				TraceID: "t", SpanID: fmt.Sprintf("%016x", i), Name: "request.preprocessing", TraceState: hex.EncodeToString(noise),
				StartNS: start, EndNS: start + 1e5, Ref: model.SpanRef{Path: "otel/traces.jsonl", Line: int64(i + 1)},
			}, Join: model.JoinRequestID}},
			Workers: []string{"decode-0"},
		})
	}
	return d
}

// The server evidence is written as independent evidence shards of whole
// chunks, neighbours sharing pack scripts of at most EvidencePackBytes,
// that together hold exactly the chunks of the one evidence shard reports
// of format 4 stored; a report opened whole reads them all back.
func TestEvidenceShardsHoldTheWholeShardsChunks(t *testing.T) {
	// More shards than a pack holds (PackParts), so that neighbours share
	// several scripts.
	d := tracedDataset(5000)
	dir := filepath.Join(t.TempDir(), "report")
	m, err := Write(d, assets(t), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev := m.Entry.Evidence
	if ev == nil || len(ev.Shards) < 3 {
		t.Fatalf("evidence entry %+v: want several evidence shards", ev)
	}
	whole := catalog.EncodeEvidence(d)
	wt, _ := whole.Table(catalog.TableServerChunks)
	want, _ := wt.Column("payload")
	var got []string
	next, parts := 0, 0
	packs := map[string]int{} // script → the payload it holds
	for _, p := range ev.Shards {
		if p.FirstChunk != next || p.Chunks < 1 {
			t.Fatalf("evidence shard %s holds chunks %d+%d, want from %d", p.ID, p.FirstChunk, p.Chunks, next)
		}
		next += p.Chunks
		if len(p.Parts) != 1 || p.Encoding != EncodingIdentity || !p.Parts[0].Pack || p.Parts[0].ID != p.ID {
			t.Errorf("evidence shard %s: %d parts, encoding %q; want one packed part stored as is", p.ID, len(p.Parts), p.Encoding)
		}
		if p.Bytes > evidencePieceBudget+1024 && p.Chunks > 1 {
			t.Errorf("evidence shard %s holds %d bytes in %d chunks, over its budget", p.ID, p.Bytes, p.Chunks)
		}
		packs[p.Parts[0].Path] += p.Bytes
		parts += len(p.Parts)
		s, err := readEvidencePiece(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		tb, _ := s.Table(catalog.TableServerChunks)
		c, _ := tb.Column("payload")
		got = append(got, c.Strings...)
	}
	if !reflect.DeepEqual(got, want.Strings) {
		t.Fatalf("the evidence shards hold %d chunks that differ from the whole shard's %d", len(got), len(want.Strings))
	}
	if parts != len(ev.Parts) {
		t.Errorf("the whole evidence lists %d parts, its shards %d", len(ev.Parts), parts)
	}
	if len(packs) < 2 || len(packs) >= len(ev.Shards) {
		t.Errorf("%d evidence shards in %d scripts: want neighbours sharing several scripts", len(ev.Shards), len(packs))
	}
	for p, n := range packs {
		if n > EvidencePackBytes {
			t.Errorf("%s holds %d bytes of evidence, over %d", p, n, EvidencePackBytes)
		}
	}
	core, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back := core.Dataset(); !reflect.DeepEqual(back.Evidence, d.Evidence) {
		t.Fatal("Open(Write(d)) changed the server evidence")
	}
	// The page's boot record gives the shards as a table, each shard's
	// part once, and not the whole's parts.
	var booted struct{ Evidence *bootEvidence }
	if err := json.Unmarshal(readBoot(t, dir)["entry"], &booted); err != nil {
		t.Fatal(err)
	}
	b := booted.Evidence
	if b == nil || b.Parts != nil || b.Shards != nil || b.Table == nil || b.ID != ev.ID || b.Bytes != ev.Bytes {
		t.Fatalf("the boot record's evidence %+v, want the manifest's without the whole's parts, its shards as a table", b)
	}
	if got := shardsOfTable(b.Table); !reflect.DeepEqual(got, ev.Shards) {
		t.Fatalf("the boot record's shard table expands to %+v, want the manifest's %+v", got, ev.Shards)
	}
	if len(b.Table.Paths) != len(packs) {
		t.Errorf("the table names %d pack scripts, the shards %d", len(b.Table.Paths), len(packs))
	}
}

// shardsOfTable expands t as the page does (web/src/evidenceload.js).
func shardsOfTable(t *shardTable) []EvidencePiece {
	var out []EvidencePiece
	first := 0
	for k, id := range t.ID {
		part := model.ShardPart{ID: id, Path: t.Paths[t.Path[k]], Bytes: t.Bytes[k], Pack: true}
		out = append(out, EvidencePiece{Shard: model.Shard{ID: id, Bytes: t.Bytes[k], DecodedBytes: t.Bytes[k], Encoding: EncodingIdentity, Parts: []model.ShardPart{part}}, FirstChunk: first, Chunks: t.Chunks[k]})
		first += t.Chunks[k]
	}
	return out
}

// Evidence shards of another shape than one packed part stored as is (a
// shard too large for a pack, a report written otherwise) keep the list
// in the boot record.
func TestBootEvidenceKeepsTheListForOtherShards(t *testing.T) {
	packed := func(id string, first int) EvidencePiece {
		return EvidencePiece{Shard: model.Shard{ID: id, Bytes: 10, DecodedBytes: 10, Encoding: EncodingIdentity,
			Parts: []model.ShardPart{{ID: id, Path: "detail/p.js", Bytes: 10, Pack: true}}}, FirstChunk: first, Chunks: 1}
	}
	alone := packed("b", 1)
	alone.Parts[0].Pack = false
	gap := packed("b", 2)
	for name, shards := range map[string][]EvidencePiece{"a script of its own": {packed("a", 0), alone}, "a chunk missing": {packed("a", 0), gap}} {
		b := bootEntry(Entry{Evidence: &EvidenceEntry{Shard: model.Shard{ID: "w", Parts: []model.ShardPart{{ID: "x"}}}, Shards: shards}}).Evidence
		if b.Table != nil || !reflect.DeepEqual(b.Shards, shards) || b.Parts != nil {
			t.Errorf("%s: boot evidence %+v, want the list without the whole's parts", name, b)
		}
	}
	b := bootEntry(Entry{Evidence: &EvidenceEntry{Shard: model.Shard{ID: "w", Parts: []model.ShardPart{{ID: "x"}}}, Shards: []EvidencePiece{packed("a", 0), packed("b", 1)}}}).Evidence
	if b.Table == nil || b.Shards != nil || len(b.Table.Paths) != 1 || !reflect.DeepEqual(b.Table.Path, []int{0, 0}) {
		t.Errorf("two packed shards: boot evidence %+v, want a table of one pack", b)
	}
}

// A one-request question reads only the evidence shard holding that
// request: the other requests' evidence stays pending, and the answer is
// the one a fully opened report gives.
func TestLazyLoadsOnlyTheAskedRequestsEvidenceShard(t *testing.T) {
	d, dir := tracedReport(t, 600)
	fe := openWhole(t, dir)
	l, e := openLazy(t, dir)
	last := d.Requests[len(d.Requests)-1].ID
	if err := l.LoadEvidenceFor(e, last); err != nil {
		t.Fatal(err)
	}
	if l.Core.HasEvidence() || l.Core.HasChunk(0) {
		t.Fatal("asking about the last request loaded the first request's evidence shard too")
	}
	for _, q := range []string{`{"op":"request","args":{"id":"` + last + `"}}`, `{"op":"lifecycle","args":{"id":"` + last + `"}}`} {
		if got, want := string(e.Handle([]byte(q))), string(fe.Handle([]byte(q))); got != want {
			t.Fatalf("%s: lazily\n%s\nfully opened\n%s", q, got, want)
		}
	}
	q := []byte(`{"op":"lifecycle","args":{"id":"` + d.Requests[0].ID + `"}}`)
	if got := string(e.Handle(q)); !strings.Contains(got, `"code":"evidence_pending"`) {
		t.Fatalf("the first request's lifecycle before its evidence shard: %s, want evidence_pending", got)
	}
	if err := l.LoadEvidence(e); err != nil {
		t.Fatal(err)
	}
	if got, want := string(e.Handle(q)), string(fe.Handle(q)); got != want {
		t.Fatalf("after every evidence shard: %s, want %s", got, want)
	}
}

// A piece of another report's evidence (its chunks placed among another
// count) is refused, not attached.
func TestEvidenceShardOfAnotherReportRefused(t *testing.T) {
	small, large := tracedDataset(70), tracedDataset(600)
	pieces, err := catalog.SplitEvidence(catalog.EncodeEvidence(large), evidencePieceBudget)
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Open(catalog.Encode(small))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := shard.Encode(pieces[0].Shard)
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AttachEvidence(s); err == nil {
		t.Fatal("a piece of another report's evidence was attached")
	}
}

// tracedReport writes the report of a traced dataset of n requests.
func tracedReport(t *testing.T, n int) (*model.Dataset, string) {
	t.Helper()
	d := tracedDataset(n)
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(d, assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	return d, dir
}

// openWhole is the engine of the report at dir, every shard read.
func openWhole(t *testing.T, dir string) *query.Engine {
	t.Helper()
	full, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := query.New(full)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// openLazy opens the report at dir lazily, with the engine of its core.
func openLazy(t *testing.T, dir string) (*Lazy, *query.Engine) {
	t.Helper()
	l, err := OpenLazy(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := query.New(l.Core)
	if err != nil {
		t.Fatal(err)
	}
	return l, e
}
