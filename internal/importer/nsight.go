package importer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/nsys"
)

// Nsight Systems SQLite exports: every *.sqlite under the log directory,
// and each --nsys-sqlite path (a file, or a directory searched
// recursively), which must exist.

// discoverNsight lists the exports to read, sorted, each once.
func discoverNsight(logDir string, explicit []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if abs, err := filepath.Abs(p); err == nil && !seen[abs] {
			seen[abs] = true
			out = append(out, p)
		}
	}
	walk := func(dir string) error {
		return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".sqlite") {
				add(p)
			}
			return nil
		})
	}
	for _, p := range explicit {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("--nsys-sqlite: %w", err)
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		if err := walk(p); err != nil {
			return nil, fmt.Errorf("--nsys-sqlite: %w", err)
		}
	}
	if err := walk(logDir); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// readNsight reads every export into d.Profiles, registering each file as
// a source, and returns the union of their capture windows (UTC ns).
func (res *Result) readNsight(d *model.Dataset, root string, paths []string, maxEvents int64, claimed map[string]bool) (lo, hi int64, ok bool, err error) {
	for _, path := range paths {
		src, err := res.open(d, root, path, "nsight")
		if err != nil {
			return 0, 0, false, err
		}
		p, err := nsys.Read(path, src.rel, nsys.Options{MaxEvents: maxEvents})
		if err == nil {
			// The hash covers the file as the reader saw it.
			err = res.finishSource(d, src)
		}
		src.close()
		if err != nil {
			return 0, 0, false, err
		}
		claimed[path] = true
		p.ID, p.Source = len(d.Profiles), src.id
		d.Profiles = append(d.Profiles, *p)
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
			d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%s: kept %d of %d selected NVTX ranges (--max-profile-events %d); the report holds the ranges starting from %d to %d ns on the session timeline", src.rel, c.Kept, c.Selected, p.Limit, r[0], r[1]))
		}
		if len(p.Schema.Missing) > 0 {
			d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%s: the export has no %s", src.rel, strings.Join(p.Schema.Missing, ", ")))
		}
		if !p.Mapped {
			d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%s: the name is outside the Nsight filename grammar; the profile is imported as unmapped", src.rel))
		}
		a, b := p.UTCNS(p.Capture[0]), p.UTCNS(p.Capture[1])
		if !ok {
			lo, hi, ok = a, b, true
		}
		lo, hi = min(lo, a), max(hi, b)
	}
	if len(d.Profiles) > 0 {
		d.Meta.Limitations = append(d.Meta.Limitations, "Nsight ranges are shared process and rank activity; overlap with a request does not prove the request owned it.")
	}
	return lo, hi, ok, nil
}

// DefaultMaxProfileEvents is the default --max-profile-events.
const DefaultMaxProfileEvents = nsys.DefaultMaxEvents
