package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/shard"
)

// Published is a report as a published copy holds it. A local report
// keeps the run's absolute path in meta.source_root (the reference's §3.1:
// the CLI and the page say where the evidence came from), but a published
// one is read by strangers and must not carry the builder's directory
// layout: there source_root is the run directory's base name. The core
// shard holding it is content-hashed, so its parts are renamed and
// index.html's boot record and the manifest follow.
type Published struct {
	// Files holds the bytes of every file whose published content differs
	// from the local report's (index.html, manifest.json and the core
	// shard's new parts), by slash path; every other file is published as
	// it is.
	Files map[string][]byte
	// Manifest is the published manifest.json, decoded; its Files list
	// what the published copy holds.
	Manifest *Manifest
	// ManifestBytes is Files[ManifestFile].
	ManifestBytes []byte
}

var bootElement = []byte(`<script type="application/json" id="dsight-boot">`)

// ForPublishing reads the report in dir, verifying what it rewrites, and
// returns its published form. A report without a core shard (or whose
// source_root is already a base name) is returned unchanged.
func ForPublishing(dir string) (*Published, error) {
	mb, err := readBounded(filepath.Join(dir, ManifestFile), maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("%s is not a dsight report: %w", dir, err)
	}
	var m Manifest
	if err := json.Unmarshal(mb, &m); err != nil || m.Generator != Generator {
		return nil, fmt.Errorf("%s is not a dsight report (its %s does not read as one)", dir, ManifestFile)
	}
	unchanged := &Published{Files: map[string][]byte{ManifestFile: mb}, Manifest: &m, ManifestBytes: mb}
	if len(m.Entry.Core.Parts) == 0 {
		return unchanged, nil
	}
	raw, err := readShard(dir, m.Entry.Core)
	if err != nil {
		return nil, fmt.Errorf("core shard: %w", err)
	}
	s, err := shard.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("core shard: %w", err)
	}
	root, err := sourceRootColumn(s)
	if err != nil {
		return nil, err
	}
	local := root.Strings[0]
	published := filepath.Base(local)
	if !filepath.IsAbs(local) || published == local {
		return unchanged, nil
	}
	root.Strings[0] = published
	raw, err = shard.Encode(s)
	if err != nil {
		return nil, fmt.Errorf("core shard: %w", err)
	}
	files := &stageFiles{mem: map[string][]byte{}}
	core, err := addFramedShard(files, raw)
	if err != nil {
		return nil, err
	}
	oldCore := m.Entry.Core
	m.Entry.Core = core

	index, err := readBounded(filepath.Join(dir, IndexFile), maxManifestBytes)
	if err != nil {
		return nil, err
	}
	if index, err = withEntry(index, m.Entry); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, IndexFile), err)
	}
	files.put(IndexFile, index)

	var rawSummary struct {
		Summary json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal(mb, &rawSummary); err != nil {
		return nil, err
	}
	if m.Summary, err = withSourceRoot(rawSummary.Summary, published); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	gone := map[string]bool{IndexFile: true}
	for _, p := range oldCore.Parts {
		gone[p.Path] = true
	}
	for _, f := range m.Files {
		if !gone[f.Path] {
			files.entries = append(files.entries, f)
		}
	}
	m.Files = files.entries
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	m.Files = slices.CompactFunc(m.Files, func(a, b FileEntry) bool { return a.Path == b.Path })
	out, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return nil, err
	}
	out = append(out, '\n')
	files.mem[ManifestFile] = out
	return &Published{Files: files.mem, Manifest: &m, ManifestBytes: out}, files.err
}

func sourceRootColumn(s *shard.Shard) (*shard.Column, error) {
	t, ok := s.Table(catalog.TableMeta)
	if !ok || t.Rows != 1 {
		return nil, fmt.Errorf("core shard: no one-row %s table", catalog.TableMeta)
	}
	c, ok := t.Column("source_root")
	if !ok || len(c.Strings) != 1 || c.IsNull(0) {
		return nil, fmt.Errorf("core shard: %s has no source_root", catalog.TableMeta)
	}
	return c, nil
}

// withEntry replaces the boot record's entry in index.html. The record is
// JSON in a non-executable script element, so the page's CSP (the hashes of
// its executable scripts) is unchanged; json.Marshal escapes '<', so the
// record cannot close its element.
func withEntry(index []byte, entry Entry) ([]byte, error) {
	start := bytes.Index(index, bootElement)
	if start < 0 {
		return nil, fmt.Errorf("no boot record")
	}
	start += len(bootElement)
	end := bytes.Index(index[start:], []byte("</script>"))
	if end < 0 {
		return nil, fmt.Errorf("boot record not closed")
	}
	end += start
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(index[start:end], &rec); err != nil {
		return nil, fmt.Errorf("boot record: %w", err)
	}
	eb, err := json.Marshal(bootEntry(entry))
	if err != nil {
		return nil, err
	}
	rec["entry"] = eb
	rb, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	return slices.Concat(index[:start], rb, index[end:]), nil
}

// withSourceRoot sets meta.source_root in the manifest's summary, keeping
// every other value as written (numbers stay exact).
func withSourceRoot(summary json.RawMessage, root string) (any, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(summary, &top); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(top["meta"], &meta); err != nil {
		return nil, fmt.Errorf("summary meta: %w", err)
	}
	meta["source_root"], _ = json.Marshal(root)
	var err error
	if top["meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	out, err := json.Marshal(top)
	return json.RawMessage(out), err
}
