package metrics

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
	"github.com/dsight/dsight/internal/sourcename"
	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/tools/gen/synth"
)

type fixture struct {
	logDir  string
	workers []string
	sum     synth.Summary
}

// synthRun writes a run with a Tachometer capture and both SGLang and
// TokenSpeed worker logs.
func synthRun(t *testing.T) fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	sum, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 200, Timezone: "UTC", Sources: synth.DefaultSources | synth.SourceTokenSpeed})
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{logDir: filepath.Join(dir, "logs"), sum: sum}
	outs, _ := filepath.Glob(filepath.Join(f.logDir, "*.out"))
	for _, p := range outs {
		if id, ok := sourcename.Parse(filepath.Base(p)); ok && !id.IsFrontend() {
			f.workers = append(f.workers, p)
		}
	}
	if len(f.workers) == 0 {
		t.Fatal("synthetic run has no worker logs")
	}
	return f
}

// registry stands in for the importer's source manifest.
type registry struct {
	paths []string
	kinds []string
}

func (r *registry) register(path, kind string) (int, string, error) {
	if i := slices.Index(r.paths, path); i >= 0 {
		return i, path, nil
	}
	r.paths, r.kinds = append(r.paths, path), append(r.kinds, kind)
	return len(r.paths) - 1, path, nil
}

func (f fixture) read(t *testing.T, loc *time.Location) (*Result, *registry) {
	t.Helper()
	reg := &registry{}
	r, err := Read(Options{LogDir: f.logDir, WorkerLogs: f.workers, Location: loc, OriginNS: f.sum.StartNS, LastNS: f.sum.EndNS, Register: reg.register})
	if err != nil {
		t.Fatal(err)
	}
	return r, reg
}

// collector keeps every capture series' identity.
type collector struct{ infos []*tachometer.SeriesInfo }

func (c *collector) Series(s *tachometer.SeriesInfo) error { c.infos = append(c.infos, s); return nil }
func (c *collector) Points([]tachometer.Point) error       { return nil }

func TestEveryFamilyAndSeries(t *testing.T) {
	f := synthRun(t)
	r, reg := f.read(t, time.UTC)

	c, err := tachometer.Discover(filepath.Join(f.logDir, filepath.FromSlash(tachometer.DefaultRoot)), false)
	if err != nil {
		t.Fatal(err)
	}
	var col collector
	all, err := tachometer.Read(c, tachometer.Options{}, &col)
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]model.MetricFamily{}
	for _, fam := range r.Families {
		fams[fam.Name] = fam
	}
	for _, fam := range all.Families {
		if _, ok := fams[fam.Name]; !ok {
			t.Errorf("captured family %s is not catalogued", fam.Name)
		}
	}
	perFamily := map[string]int{}
	for i, s := range r.Series {
		if s.ID != i {
			t.Fatalf("series %d has id %d", i, s.ID)
		}
		if s.Summary == nil || s.Summary.Payload.Len() == 0 || s.Summary.Chunks == 0 {
			t.Fatalf("series %d (%s) has no summary", i, s.Name)
		}
		perFamily[s.Name]++
	}
	for name, fam := range fams {
		if fam.SeriesCount != perFamily[name] && fam.SourceKind == "worker_log" {
			t.Errorf("family %s: series_count %d, %d series", name, fam.SeriesCount, perFamily[name])
		}
		if fam.SourceKind == "" && perFamily[name] > fam.SeriesCount {
			t.Errorf("family %s: %d series, catalog says %d", name, perFamily[name], fam.SeriesCount)
		}
	}
	for _, prefix := range []string{"log_sglang_", "log_tokenspeed_"} {
		found := false
		for name := range fams {
			found = found || strings.HasPrefix(name, prefix)
		}
		if !found {
			t.Errorf("no %s* family", prefix)
		}
	}
	kinds := map[string]int{}
	for _, k := range reg.kinds {
		kinds[k]++
	}
	if kinds[KindCapture] != len(c.Files) || kinds[KindWorkerLog] != len(f.workers) {
		t.Errorf("registered %v, want %d captures and %d worker logs", kinds, len(c.Files), len(f.workers))
	}
}

func TestCapacitySeriesHasItsLimit(t *testing.T) {
	f := synthRun(t)
	r, _ := f.read(t, time.UTC)
	checked := 0
	for _, s := range r.Series {
		if s.Name != "log_tokenspeed_active_decode_requests" {
			continue
		}
		if s.Reference == nil || s.Reference.SeriesID == nil {
			t.Fatalf("%s has no limit: %+v", s.Label, s.Reference)
		}
		lim := r.Series[*s.Reference.SeriesID]
		if lim.Name != "log_tokenspeed_decode_request_limit" || *lim.Worker != *s.Worker || *lim.Rank != *s.Rank || lim.Temporal != "setting" {
			t.Fatalf("%s is paired with %s (%v/%v)", s.Label, lim.Label, lim.Worker, lim.Rank)
		}
		gz, err := s.Summary.Payload.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := shard.Decompress(gz)
		if err != nil {
			t.Fatal(err)
		}
		sh, err := shard.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := sh.Table("pyramid")
		col, ok := h.Column("has_limits")
		if !ok || !col.Bools[0] {
			t.Fatalf("%s was not built against its limit", s.Label)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no active decode batch series")
	}
}

// The page lists families as the catalog does, one option group per run of
// equal component and group, so a run must never be split, components must
// come in tachometer.Components order, and series must follow their family.
func TestCatalogIsInDisplayOrder(t *testing.T) {
	f := synthRun(t)
	r, _ := f.read(t, time.UTC)
	if len(r.Families) < 2 {
		t.Fatalf("%d families; the run must give more", len(r.Families))
	}
	seen := map[[2]string]bool{}
	groups := map[string]bool{}
	lastComponent := -1
	for i, fam := range r.Families {
		key := [2]string{fam.Component, fam.Group}
		if i > 0 && key != [2]string{r.Families[i-1].Component, r.Families[i-1].Group} && seen[key] {
			t.Errorf("family %s: %s / %s is listed in two runs", fam.Name, fam.Component, fam.Group)
		}
		seen[key], groups[fam.Group] = true, true
		c := slices.Index(tachometer.Components, fam.Component)
		if c < 0 {
			t.Fatalf("family %s has component %q, which is not listed", fam.Name, fam.Component)
		}
		if c < lastComponent {
			t.Errorf("family %s (%s) comes after a later component", fam.Name, fam.Component)
		}
		lastComponent = c
	}
	if len(groups) < 3 {
		t.Fatalf("%d groups; the run must give more", len(groups))
	}
	rank := map[string]int{}
	for i, fam := range r.Families {
		rank[fam.Name] = i
	}
	for i := 1; i < len(r.Series); i++ {
		if rank[r.Series[i].Name] < rank[r.Series[i-1].Name] {
			t.Fatalf("series %d (%s) comes after a series of a later family", i, r.Series[i].Name)
		}
	}
}

func TestNoTimezoneOmitsLogMetrics(t *testing.T) {
	f := synthRun(t)
	r, _ := f.read(t, nil)
	for _, s := range r.Series {
		if s.SourceKind == "worker_log" {
			t.Fatalf("log metric %s kept without a timezone", s.Name)
		}
	}
	if !slices.Contains(r.Warnings, logmetric.WarnNeedTimezone) {
		t.Fatalf("warnings %q lack %q", r.Warnings, logmetric.WarnNeedTimezone)
	}
	if r.Audit["unaligned_log_metric_records"] == 0 {
		t.Fatal("omitted records are not counted")
	}
	if len(r.Series) == 0 {
		t.Fatal("capture series must not depend on the timezone")
	}
}

func TestWindowKeepsCatalogButDropsPoints(t *testing.T) {
	f := synthRun(t)
	reg := &registry{}
	// A one-second window: most families have no point in it, yet all stay.
	r, err := Read(Options{LogDir: f.logDir, WorkerLogs: f.workers, Location: time.UTC, OriginNS: f.sum.StartNS, LastNS: f.sum.StartNS + 1e9, Register: reg.register})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := f.read(t, time.UTC)
	names := func(fs []model.MetricFamily) (out []string) {
		for _, f := range fs {
			if f.SourceKind == "" {
				out = append(out, f.Name)
			}
		}
		slices.Sort(out)
		return out
	}
	if a, b := names(r.Families), names(full.Families); !slices.Equal(a, b) {
		t.Fatalf("catalog depends on the window:\n%v\n%v", a, b)
	}
	var kept, all int64
	for _, s := range r.Series {
		kept += s.Samples
	}
	for _, s := range full.Series {
		all += s.Samples
	}
	if kept == 0 || kept >= all {
		t.Fatalf("window kept %d of %d samples", kept, all)
	}
}
