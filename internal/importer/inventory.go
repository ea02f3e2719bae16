package importer

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// inventory is every entry below a run's log directory, from one walk. The
// source kinds discover their files in it, and what no kind registered is
// reported as unread from it. Symbolic links are followed, by one rule for
// every source (walkRun, links.go): a followed link is listed under its own
// path as what it points to, and every link is recorded in links.
type inventory struct {
	dir      string
	entries  map[string]fs.DirEntry // by slash path relative to dir
	children map[string][]string    // directory ("." for dir) → entry names, sorted
	order    []string               // every entry, in walk (lexical) order
	links    []walkedLink           // every symbolic link met, in walk order
}

func (inv *inventory) abs(rel string) string { return filepath.Join(inv.dir, filepath.FromSlash(rel)) }

// regular lists the files whose relative path satisfies keep, as absolute
// paths in walk order. Pipes and devices are listed too, so that opening
// one refuses it by name (lineread.Open) rather than skipping it without a
// word; directories and links are not.
func (inv *inventory) regular(keep func(rel string, e fs.DirEntry) bool) []string {
	var out []string
	for _, rel := range inv.order {
		if e := inv.entries[rel]; !e.IsDir() && e.Type()&fs.ModeSymlink == 0 && keep(rel, e) {
			out = append(out, inv.abs(rel))
		}
	}
	return out
}

// glob is fs.Glob over the inventory: the files (regular, or links to
// something that is not a directory) matching any of patterns, absolute,
// each once, sorted.
func (inv *inventory) glob(patterns ...string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, g := range patterns {
		matches, err := fs.Glob(inv, g)
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			if st, err := fs.Stat(inv, m); err == nil && !st.IsDir() && !seen[m] {
				seen[m] = true
				out = append(out, inv.abs(m))
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// unread lists the regular files no kind registered, and the links that
// could not be followed, relative to root.
func (inv *inventory) unread(root string, registered map[string]int) []string {
	var out []string
	for _, l := range inv.links {
		if l.unread != "" {
			out = append(out, relative(root, l.path))
		}
	}
	for _, p := range inv.regular(func(string, fs.DirEntry) bool { return true }) {
		if _, ok := registered[p]; !ok {
			out = append(out, relative(root, p))
		}
	}
	sort.Strings(out)
	return out
}

// The inventory is an fs.FS of names, for discovery functions written
// against one (otlp.Discover, fs.Glob): ReadDir and Stat answer from the
// walk; nothing can be opened for reading through it.
var (
	_ fs.ReadDirFS = (*inventory)(nil)
	_ fs.StatFS    = (*inventory)(nil)
)

var errNamesOnly = errors.New("the run inventory holds names only")

func (inv *inventory) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: errNamesOnly}
}

func (inv *inventory) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	if name != "." {
		if e, ok := inv.entries[name]; !ok || !e.IsDir() {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
		}
	}
	names := inv.children[name]
	out := make([]fs.DirEntry, len(names))
	for i, n := range names {
		out[i] = inv.entries[path.Join(name, n)]
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

func (inv *inventory) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return os.Stat(inv.dir)
	}
	e, ok := inv.entries[name]
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	if e.Type()&fs.ModeSymlink != 0 {
		return os.Stat(inv.abs(name)) // a link is what it points to, as for filepath.Glob
	}
	return e.Info()
}
