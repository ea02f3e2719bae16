package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dsight/dsight/internal/model"
)

// The one symlink rule, for every source kind alike: a link is followed
// (logs on shared storage are normal, and a link to a log directory or a
// capture file must not lose it), recorded with its resolved target in the
// manifest, and said out loud when its target lies outside the run (a run
// received from someone else must not quietly pull in the builder's own
// files). A link that does not resolve (dangling, or a cycle the resolver
// gives up on) and a link to a directory that holds it (a loop) are listed
// as unread with the reason. A link to a directory the walk reads anyway
// (logs/latest → logs/run3) is recorded but not walked again, so that its
// files are not read twice.

// walkedLink is one symbolic link met by the walk.
type walkedLink struct {
	path   string // absolute, below the inventory's directory (or the directory itself)
	target string // resolved, absolute; "" when it does not resolve
	unread string // why it was not followed; "" when it was
	// duplicateOf is the directory (absolute, as walked) a link to a
	// directory read under another path leads into; it is not walked again.
	duplicateOf string
}

// walked is one entry of the walk.
type walked struct {
	rel   string
	entry fs.DirEntry
}

// pendingDir is a link to a directory, walked once the directories reached
// without links are known.
type pendingDir struct {
	link      int // index in links
	rel, real string
	parent    string // the resolved directory holding the link
}

type walker struct {
	dir     string
	out     []walked
	links   []walkedLink
	pending []pendingDir
	walked  []string // resolved directories walked, each with its whole tree
	// walkedRel are the walked directories' paths, relative to dir.
	walkedRel []string
}

// walkRun lists every entry below dir, following symbolic links by the rule
// above, in filepath.WalkDir's (lexical) order.
func walkRun(dir string) (*inventory, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	w := &walker{dir: dir}
	if st, err := os.Lstat(dir); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		w.links = append(w.links, walkedLink{path: dir, target: real}) // logs/ on shared storage
	}
	if err := w.walk(".", real); err != nil {
		return nil, err
	}
	for len(w.pending) > 0 {
		p := w.pending[0]
		w.pending = w.pending[1:]
		l := &w.links[p.link]
		if within(p.parent, p.real) {
			l.unread = "loop: it points at " + p.real + ", a directory that holds it"
			continue
		}
		if first := w.walkedAt(p.real); first != "" {
			l.duplicateOf = first
			continue
		}
		if err := w.walk(p.rel, p.real); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(w.out, func(i, j int) bool { return walkLess(w.out[i].rel, w.out[j].rel) })
	inv := &inventory{dir: dir, entries: map[string]fs.DirEntry{}, children: map[string][]string{}, links: w.links}
	for _, e := range w.out {
		inv.entries[e.rel] = e.entry
		inv.order = append(inv.order, e.rel)
		parent := path.Dir(e.rel)
		inv.children[parent] = append(inv.children[parent], e.entry.Name())
	}
	return inv, nil
}

// walkLess orders slash paths as filepath.WalkDir visits them: lexically
// by name within each directory, a directory before what it holds.
func walkLess(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] != bs[i] {
			return as[i] < bs[i]
		}
	}
	return len(as) < len(bs)
}

// within reports whether dir is inner or one of its parents.
func within(inner, dir string) bool {
	return inner == dir || strings.HasPrefix(inner, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// walkedAt is the absolute path, as the walk reached it, of the walked
// directory that holds real, or "".
func (w *walker) walkedAt(real string) string {
	for i, d := range w.walked {
		if within(real, d) {
			return filepath.Join(w.dir, filepath.FromSlash(w.walkedRel[i]))
		}
	}
	return ""
}

// walk lists the directory rel (resolved to real) and, without following
// links to directories yet (they are queued), everything below it.
func (w *walker) walk(rel, real string) error {
	w.walked = append(w.walked, real)
	w.walkedRel = append(w.walkedRel, rel)
	abs := filepath.Join(w.dir, filepath.FromSlash(rel))
	entries, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	for _, e := range entries {
		childRel := path.Join(rel, e.Name())
		childAbs := filepath.Join(abs, e.Name())
		if e.Type()&fs.ModeSymlink == 0 {
			w.out = append(w.out, walked{rel: childRel, entry: e})
			if e.IsDir() {
				if err := w.walk(childRel, filepath.Join(real, e.Name())); err != nil {
					return err
				}
			}
			continue
		}
		link := walkedLink{path: childAbs}
		target, err := filepath.EvalSymlinks(childAbs)
		if err != nil {
			link.unread = unresolved(childAbs, err)
			w.links = append(w.links, link)
			continue
		}
		link.target = target
		st, err := os.Stat(childAbs)
		if err != nil {
			link.unread = unresolved(childAbs, err)
			w.links = append(w.links, link)
			continue
		}
		w.links = append(w.links, link)
		if st.IsDir() {
			w.pending = append(w.pending, pendingDir{link: len(w.links) - 1, rel: childRel, real: target, parent: real})
		}
		w.out = append(w.out, walked{rel: childRel, entry: fs.FileInfoToDirEntry(st)})
	}
	return nil
}

func unresolved(link string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		if t, rerr := os.Readlink(link); rerr == nil {
			return "dangling: its target " + t + " does not exist"
		}
		return "dangling: its target does not exist"
	}
	// filepath.EvalSymlinks gives up on a cycle of links ("too many links").
	return "loop or unresolvable link: " + err.Error()
}

// recordLinks puts the inventory's links in the dataset, relative to root
// when they stay inside the run, with a counted warning for the links that
// leave the run and for those that could not be followed.
func recordLinks(d *model.Dataset, root string, links []walkedLink) {
	if len(links) == 0 {
		return
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	var outside, broken []string
	for _, l := range links {
		m := model.Link{Path: relative(root, l.path), Unread: l.unread}
		if l.target != "" {
			if rel, err := filepath.Rel(realRoot, l.target); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				m.Target = filepath.ToSlash(rel)
			} else {
				m.Target, m.Outside = filepath.ToSlash(l.target), true
				if l.unread == "" {
					outside = append(outside, m.Path+" → "+m.Target)
				}
			}
		}
		if l.duplicateOf != "" {
			m.Unread = "same directory as " + relative(root, l.duplicateOf) + ", read there"
		}
		if l.unread != "" {
			broken = append(broken, m.Path+" ("+l.unread+")")
		}
		d.Links = append(d.Links, m)
	}
	d.Audit["symlinks"] = int64(len(links))
	if n := len(outside); n > 0 {
		d.Audit["symlinks_outside_run"] = int64(n)
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d symbolic link(s) in the run point outside it and were followed (first: %s); check that what they reach belongs to this run; manifest.json lists every link", n, outside[0]))
	}
	if n := len(broken); n > 0 {
		sort.Strings(broken)
		d.Audit["symlinks_unread"] = int64(n)
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d symbolic link(s) in the run could not be followed and were not read (first: %s); manifest.json lists them as unread", n, broken[0]))
	}
}
