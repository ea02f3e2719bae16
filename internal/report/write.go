package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

// Options controls one write.
type Options struct {
	// Verify runs after everything is staged and before the swap; an error
	// aborts the build and keeps the previous report (sources changed, …).
	Verify func() error
	// Store, when set, writes StoreFile into the stage.
	Store StoreWriter
}

// Write builds the report for d into dir, replacing an earlier report there.
func Write(d *model.Dataset, assets fs.FS, dir string, opt Options) (*Manifest, error) {
	dir, files, release, err := openStage(dir, d.Meta.SourceRoot)
	if err != nil {
		return nil, err
	}
	defer release()
	return writeStaged(d, assets, dir, files, opt)
}

// openStage is what Write and Begin do before anything is written: dir
// made absolute and checked against the run at run (absolute too, when
// given), the stages earlier builds left removed, and a stage opened with
// its lock held (release gives it up).
func openStage(dir, run string) (abs string, files *stageFiles, release func(), err error) {
	if dir, err = filepath.Abs(dir); err != nil {
		return "", nil, nil, err
	}
	if run != "" {
		if run, err = filepath.Abs(run); err != nil {
			return "", nil, nil, err
		}
	}
	if err := checkTarget(dir, run); err != nil {
		return "", nil, nil, err
	}
	removeAbandonedStages(dir)
	stage, release, err := newStage(dir)
	if err != nil {
		return "", nil, nil, fmt.Errorf("stage report: %w", err)
	}
	return dir, &stageFiles{dir: stage}, release, nil
}

// writeStaged renders d into the stage files write into, verifies and
// publishes it at dir; the caller removes what is left of the stage.
func writeStaged(d *model.Dataset, assets fs.FS, dir string, files *stageFiles, opt Options) (*Manifest, error) {
	m, err := render(d, assets, files, opt.Store)
	if err != nil {
		return nil, err
	}
	if opt.Verify != nil {
		if err := opt.Verify(); err != nil {
			return nil, err
		}
	}
	if err := swap(files.dir, dir); err != nil {
		return nil, err
	}
	return m, nil
}

// stageFiles writes report files into the stage as they are produced, so
// the build never holds the whole report (hundreds of MB for large runs)
// in memory, and lists them for the manifest.
type stageFiles struct {
	dir     string
	mem     map[string][]byte // when set, files are kept here, not written
	entries []FileEntry
	err     error // the first write error; later puts do nothing
}

// put writes one file, named by slash path.
func (f *stageFiles) put(name string, b []byte) {
	if f.err != nil {
		return
	}
	if f.mem != nil {
		f.mem[name] = b
	} else if err := f.write(name, b); err != nil {
		f.err = err
		return
	}
	f.entries = append(f.entries, fileEntry(name, b))
}

// render produces every output file into out and returns the manifest.
func render(d *model.Dataset, assets fs.FS, out *stageFiles, store StoreWriter) (*Manifest, error) {
	waitStore := startStore(out.dir, store, d)
	// Every return waits, so the stage is never removed under the writer.
	defer waitStore()
	wasm, err := fs.ReadFile(assets, AssetEngine)
	if err != nil {
		return nil, fmt.Errorf("page assets: %w (run `make assets`)", err)
	}
	// The engine is compressed while the metric shards are written.
	engineGz := compressBeside(wasm)
	d, err = addMetricShards(out, d)
	if err != nil {
		return nil, err
	}
	engine, err := engineGz.add(out)
	if err != nil {
		return nil, err
	}
	d, err = addProfileShards(out, d)
	if err != nil {
		return nil, err
	}
	coreShard := catalog.Encode(d)
	if err := checkChunkLimits(d, coreShard); err != nil {
		return nil, err
	}
	raw, err := shard.Encode(coreShard)
	if err != nil {
		return nil, fmt.Errorf("encode core shard: %w", err)
	}
	core, err := addFramedShard(out, raw)
	if err != nil {
		return nil, err
	}
	entry := Entry{Engine: engine, Core: core}
	if s, ok := d.StreamedEvidence.(pieceStream); ok && len(d.Evidence) == 0 {
		// The import checked each chunk against the readers' bound as it
		// encoded it.
		if d.StreamedEvidence.Len() > 0 {
			sh, err := addStreamedEvidence(out, s)
			if err != nil {
				return nil, fmt.Errorf("encode server evidence: %w (the run has server evidence for %d requests)", err, evidenceCount(d))
			}
			entry.Evidence = sh
		}
	} else if ev, err := catalog.EvidenceShard(d); err != nil {
		return nil, fmt.Errorf("encode server evidence: %w (the run has server evidence for %d requests)", err, evidenceCount(d))
	} else if ev != nil {
		if err := checkChunkLimits(d, ev); err != nil {
			return nil, err
		}
		sh, err := addEvidence(out, ev)
		if err != nil {
			return nil, fmt.Errorf("encode server evidence: %w (the run has server evidence for %d requests)", err, evidenceCount(d))
		}
		entry.Evidence = sh
	}
	view, err := catalog.Open(coreShard)
	if err != nil {
		return nil, err
	}
	eng, err := query.New(view)
	if err != nil {
		return nil, err
	}
	summary := eng.Summary()
	// The first chart reads staged shards back: a failed write (a full
	// disk) must be reported as itself, not as the missing file it leaves.
	if out.err != nil {
		return nil, out.err
	}
	first, err := firstChart(eng, view, out.dir, summary.Meta.Duration)
	if err != nil {
		return nil, err
	}
	html, csp, err := renderIndex(assets, d, entry, summary, first)
	if err != nil {
		return nil, err
	}
	out.put(IndexFile, html)
	out.put(HeadersFile, Headers(csp))
	storeEntry, err := waitStore()
	if err != nil {
		return nil, err
	}
	if storeEntry != nil {
		out.entries = append(out.entries, *storeEntry)
	}

	m := &Manifest{
		Generator: Generator, FormatVersion: FormatVersion, Schema: model.Schema,
		Summary: summary, Entry: entry, Unread: nonNil(d.Unread),
	}
	for _, l := range d.Links {
		m.Links = append(m.Links, LinkEntry{Path: l.Path, Target: l.Target, Outside: l.Outside, Unread: l.Unread})
	}
	for _, s := range d.Sources {
		m.Sources = append(m.Sources, query.SourceItem{ID: s.ID, Path: s.Path, Kind: s.Kind, Bytes: s.Bytes, SHA256: s.SHA256})
	}
	// Content-named parts shared by two shards are written twice with the
	// same bytes; the manifest lists each file once.
	m.Files = out.entries
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	m.Files = slices.CompactFunc(m.Files, func(a, b FileEntry) bool { return a.Path == b.Path })
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	out.put(ManifestFile, append(mb, '\n'))
	return m, out.err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// addShard compresses raw and stores it as detail scripts of at most
// PartBytes of payload each, every one named by the hash of its content.
func addShard(files *stageFiles, raw []byte) (model.Shard, error) {
	gz, err := shard.Compress(raw)
	if err != nil {
		return model.Shard{}, err
	}
	return addCompressedShard(files, gz, len(raw)), nil
}

// addCompressedShard is addShard for a payload already compressed with
// shard.Compress, decodedBytes long once decompressed.
func addCompressedShard(files *stageFiles, gz []byte, decodedBytes int) model.Shard {
	sh, _ := compressedShardParts(gz, decodedBytes, func(p string, script []byte) error {
		files.put(p, script)
		return nil
	})
	return sh
}

// boot is the record the page reads before anything else.
type boot struct {
	Generator     string          `json:"generator"`
	FormatVersion int             `json:"format_version"`
	Schema        string          `json:"schema"`
	Job           string          `json:"job"`
	Entry         bootRecordEntry `json:"entry"`
	Counts        query.Counts    `json:"counts"`
	FirstChart    *FirstChart     `json:"first_chart,omitempty"`
}

func renderIndex(assets fs.FS, d *model.Dataset, entry Entry, summary query.Summary, first *FirstChart) (html []byte, csp string, err error) {
	tmplText, err := fs.ReadFile(assets, AssetTemplate)
	if err != nil {
		return nil, "", fmt.Errorf("page assets: %w", err)
	}
	script, err := fs.ReadFile(assets, AssetScript)
	if err != nil {
		return nil, "", fmt.Errorf("page assets: %w (run `make assets`)", err)
	}
	style, err := fs.ReadFile(assets, AssetStyle)
	if err != nil {
		return nil, "", fmt.Errorf("page assets: %w (run `make assets`)", err)
	}
	// Inline assets must not be able to close their own element.
	if bytes.Contains(bytes.ToLower(script), []byte("</script")) {
		return nil, "", fmt.Errorf("page assets: %s contains </script", AssetScript)
	}
	if bytes.Contains(bytes.ToLower(style), []byte("</style")) {
		return nil, "", fmt.Errorf("page assets: %s contains </style", AssetStyle)
	}
	csp = ContentSecurityPolicy(script)
	t, err := template.New("index").Parse(string(tmplText))
	if err != nil {
		return nil, "", fmt.Errorf("page template: %w", err)
	}
	var b bytes.Buffer
	err = t.Execute(&b, map[string]any{
		"Job":    d.Meta.Job,
		"Boot":   boot{Generator: Generator, FormatVersion: FormatVersion, Schema: model.Schema, Job: d.Meta.Job, Entry: bootEntry(entry), Counts: summary.Counts, FirstChart: first},
		"Script": template.JS(script),
		"CSP":    csp,
		"Style":  template.CSS(style),
	})
	if err != nil {
		return nil, "", fmt.Errorf("page template: %w", err)
	}
	return b.Bytes(), csp, nil
}

// within reports whether path lies inside root (both absolute and clean).
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../")
}

// resolved is path with the symlinks of its longest existing prefix
// resolved, so an output reached through a link into the run is seen
// inside it.
func resolved(path string) string {
	var rest []string
	for p := path; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// CheckOutput refuses an output the build could not publish to, before
// the import spends its time: what checkTarget refuses, an output inside
// the run, and a parent directory where a few KB cannot be written (a full
// or read-only disk).
func CheckOutput(dir, run string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if run, err = filepath.Abs(run); err != nil {
		return err
	}
	if err := checkTarget(dir, run); err != nil {
		return err
	}
	return probeWritable(filepath.Dir(dir))
}

// probeBytes is what the probe writes: enough that a disk with no room
// left fails it, small enough to cost nothing.
const probeBytes = 64 << 10

func probeWritable(parent string) error {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("output directory %s cannot be created: %w", parent, err)
	}
	f, err := os.CreateTemp(parent, ".dsight-probe-*")
	if err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", parent, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, probeBytes))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", parent, err)
	}
	return nil
}

// checkTarget refuses outputs that would destroy something that is not a
// report: a symlink, the run itself or one of its parents, or a directory
// holding files this writer did not generate.
func checkTarget(dir, sourceRoot string) error {
	if sourceRoot != "" {
		if rel, err := filepath.Rel(dir, sourceRoot); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			return fmt.Errorf("output %s would contain or replace the run directory %s", dir, sourceRoot)
		}
		if within(resolved(dir), resolved(sourceRoot)) {
			return fmt.Errorf("output %s is inside the run directory %s: the next build of the run would read the report as input; choose a directory outside the run", dir, sourceRoot)
		}
	}
	st, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("output %s is a symlink; refusing to replace it", dir)
	}
	if !st.IsDir() {
		return fmt.Errorf("output %s exists and is not a directory", dir)
	}
	return checkOwned(dir)
}
