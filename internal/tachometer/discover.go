package tachometer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultRoot is the capture root below a run's log directory.
const DefaultRoot = "tachometer/local"

// FinalName is the compacted capture that supersedes every other Parquet
// shard of its leaf.
const FinalName = "final.parquet"

// Role says why a file belongs to a capture.
type Role string

const (
	RoleFinal  Role = "final"  // final.parquet
	RoleShard  Role = "shard"  // out-N.parquet, incomplete-N.parquet, … (no final.parquet)
	RoleTail   Role = "tail"   // *.arrow, always read
	RoleSingle Role = "single" // the file named by an explicit --metrics path
)

// File is one capture file, in read order. Its index in Capture.Files is the
// Source of every point read from it.
type File struct {
	Path string
	Role Role
}

// Capture is the set of files of one capture leaf.
type Capture struct {
	// Root is the directory or file the capture was discovered from.
	Root  string
	Files []File
	// Warnings are conditions the report must show, such as a capture with
	// no final.parquet whose completeness cannot be verified.
	Warnings []string
	// Open opens the files for Inspect and Read; nil is os.Open. An importer
	// that holds the files open already passes views of them, so that a
	// build opens each file once.
	Open OpenFunc

	ranges []fileRange // filled by inspect
}

// Discover finds the capture files under root: a capture leaf directory,
// a directory holding one leaf (such as <logs>/tachometer/local), or a single
// file. explicit says the path came from --metrics and must exist; the
// default root may be absent, which yields an empty capture.
//
// Parquet shards are replaced by final.parquet when it exists; Arrow tails
// are always kept. A tachometer/upload mirror met while walking is skipped.
// Files of more than one directory are an error, because merging captures
// would mix unrelated series.
func Discover(root string, explicit bool) (*Capture, error) {
	info, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		if explicit {
			return nil, fmt.Errorf("raw metrics path does not exist: %s", root)
		}
		return &Capture{Root: root}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("raw metrics path: %w", err)
	}
	c := &Capture{Root: root}
	if !info.IsDir() {
		c.Files = []File{{Path: root, Role: RoleSingle}}
		if filepath.Base(root) != FinalName {
			c.Warnings = append(c.Warnings, noFinalWarning)
		}
		return c, nil
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && isUploadMirror(path) {
				return filepath.SkipDir
			}
			return nil
		}
		// A pipe or device named like a capture is kept, so that opening
		// it refuses it by name rather than skipping it without a word; a
		// link to a file is followed, as the run's inventory follows it (a
		// linked final.parquet is the capture's final file).
		if d.Type()&fs.ModeSymlink == 0 {
			files = append(files, path)
		} else if st, err := os.Stat(path); err == nil && !st.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("raw metrics path: %w", err)
	}
	return Assemble(root, files)
}

// Assemble builds the capture of the directory root from the regular files
// found below it (paths joined to root, in any order), by Discover's rules:
// files below a tachometer/upload mirror are ignored, final.parquet
// supersedes the other Parquet shards, Arrow tails are kept, and files of
// more than one leaf directory are an error. It lets a caller that has
// already walked the run find the capture without walking it again.
func Assemble(root string, files []string) (*Capture, error) {
	c := &Capture{Root: root}
	var parquet, arrow []string
	for _, path := range files {
		if underUploadMirror(root, path) {
			continue
		}
		switch filepath.Ext(path) {
		case ".parquet":
			parquet = append(parquet, path)
		case ".arrow":
			arrow = append(arrow, path)
		}
	}
	leaves := map[string]bool{}
	for _, p := range append(append([]string(nil), parquet...), arrow...) {
		leaves[filepath.Dir(p)] = true
	}
	if len(leaves) > 1 {
		dirs := make([]string, 0, len(leaves))
		for d := range leaves {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		return nil, fmt.Errorf("multiple raw metric capture leaves under %s (%s); select one with --metrics",
			root, strings.Join(dirs, ", "))
	}
	sortNatural(parquet)
	sortNatural(arrow)
	final := ""
	for _, p := range parquet {
		if filepath.Base(p) == FinalName {
			final = p
		}
	}
	if final != "" {
		c.Files = append(c.Files, File{Path: final, Role: RoleFinal})
	} else {
		for _, p := range parquet {
			c.Files = append(c.Files, File{Path: p, Role: RoleShard})
		}
	}
	for _, p := range arrow {
		c.Files = append(c.Files, File{Path: p, Role: RoleTail})
	}
	if len(c.Files) > 0 && final == "" {
		c.Warnings = append(c.Warnings, noFinalWarning)
	}
	return c, nil
}

// underUploadMirror reports whether path lies in an upload mirror below
// root (root itself may be one: it was named on purpose).
func underUploadMirror(root, path string) bool {
	for dir := filepath.Dir(path); len(dir) > len(root); dir = filepath.Dir(dir) {
		if isUploadMirror(dir) {
			return true
		}
	}
	return false
}

const noFinalWarning = "raw metrics have no final.parquet; imported available shards/tail, completeness unverified"

// isUploadMirror reports whether dir is the uploader's copy of a capture
// (<…>/tachometer/upload), which duplicates local files.
func isUploadMirror(dir string) bool {
	return filepath.Base(dir) == "upload" && filepath.Base(filepath.Dir(dir)) == "tachometer"
}

// sortNatural orders paths so that numbered shards follow their sequence
// (out-2 before out-10), which is also their time order.
func sortNatural(paths []string) {
	sort.Slice(paths, func(i, j int) bool { return naturalLess(paths[i], paths[j]) })
}

func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			if da != db { // same number, fewer leading zeros first
				return da < db
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
