package importer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/nsys"
)

// Nsight Systems SQLite exports: every *.sqlite under the log directory,
// and each --nsys-sqlite path (a file, or a directory searched
// recursively), which must exist.

// discoverNsight lists the exports to read, sorted, each once: the
// inventory's *.sqlite files and the --nsys-sqlite paths (which may lie
// outside the run, as --metrics may).
func discoverNsight(b *build) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if abs, err := filepath.Abs(p); err == nil && !seen[abs] {
			seen[abs] = true
			out = append(out, abs)
		}
	}
	for _, p := range b.opt.NsysSQLite {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("--nsys-sqlite: %w", err)
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		err = filepath.WalkDir(p, func(q string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".sqlite") {
				add(q)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("--nsys-sqlite: %w", err)
		}
	}
	for _, p := range b.inv.regular(func(_ string, e fs.DirEntry) bool { return strings.HasSuffix(e.Name(), ".sqlite") }) {
		add(p)
	}
	sort.Strings(out)
	return out, nil
}

// readNsight reads every export into the dataset's profiles, registering
// each file as a source, and keeps the union of their capture windows (UTC
// ns) for a run without a client export. The SQLite driver opens the file
// by its path; the build hashes the same file through its one opener.
// The exports are independent, so several are read at once
// (readNsightFiles); the profiles and sources are then recorded in path
// order, as one after the other would record them.
func readNsight(b *build, paths []string) error {
	d := b.d
	w := &b.profileWindow
	reads, err := readNsightFiles(b, paths, runtime.GOMAXPROCS(0), nsightReadBudget)
	if err != nil {
		return err
	}
	defer func() {
		for _, r := range reads {
			r.src.close()
		}
	}()
	for _, r := range reads {
		p, src := r.p, r.src
		if err := b.finishSource(src); err != nil {
			return err
		}
		p.ID, p.Source = len(d.Profiles), src.id
		d.Profiles = append(d.Profiles, *p)
		noteProfile(d, p, src.rel)
		lo, hi := p.UTCNS(p.Capture[0]), p.UTCNS(p.Capture[1])
		if !w.ok {
			w.lo, w.hi, w.ok = lo, hi, true
		}
		w.lo, w.hi = min(w.lo, lo), max(w.hi, hi)
	}
	if len(d.Profiles) > 0 {
		d.Meta.Limitations = append(d.Meta.Limitations, "Nsight ranges are shared process and rank activity; overlap with a request does not prove the request owned it.")
	}
	return nil
}

// window is a span of absolute ns some source recorded, when ok.
type window struct {
	lo, hi int64
	ok     bool
}

// noteProfile counts a profile in the audit and says what it lacks.
func noteProfile(d *model.Dataset, p *model.Profile, rel string) {
	c := p.Counts
	d.Audit["nsight_profiles"]++
	d.Audit["nvtx_rows"] += c.Rows
	d.Audit["nvtx_ranges_kept"] += c.Kept
	d.Audit["nvtx_ranges_selected"] += c.Selected
	d.Audit["nvtx_invalid_or_boundary_ranges"] += c.InvalidOrBoundary
	d.Audit["nvtx_null_names"] += c.NullNames
	d.Audit["nvtx_unselected_ranges"] += c.Unselected
	if p.CPU != nil {
		d.Audit["cpu_samples"] += int64(len(p.CPU.Samples))
	}
	if p.Truncated {
		d.Audit["nsight_truncated_profiles"]++
		r, _ := p.ImportedRange()
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%s: kept %d of %d selected NVTX ranges (--max-profile-events %d); the report holds the ranges starting from %d to %d ns on the session timeline", rel, c.Kept, c.Selected, p.Limit, r[0], r[1]))
	}
	if len(p.Schema.Missing) > 0 {
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%s: the export has no %s", rel, strings.Join(p.Schema.Missing, ", ")))
	}
	if !p.Mapped {
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%s: the name is outside the Nsight filename grammar; the profile is imported as unmapped", rel))
	}
}

// DefaultMaxProfileEvents is the default --max-profile-events.
const DefaultMaxProfileEvents = nsys.DefaultMaxEvents
