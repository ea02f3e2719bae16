package report

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// checkOwned accepts an existing directory only if it is empty or a report
// whose manifest lists every file in it.
func checkOwned(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	mb, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return fmt.Errorf("output %s exists and is not a dsight report (no %s); choose another directory", dir, ManifestFile)
	}
	var m struct {
		Generator string      `json:"generator"`
		Files     []FileEntry `json:"files"`
	}
	if err := json.Unmarshal(mb, &m); err != nil || m.Generator != Generator {
		return fmt.Errorf("output %s exists and is not a dsight report; choose another directory", dir)
	}
	owned := map[string]bool{ManifestFile: true}
	for _, f := range m.Files {
		owned[f.Path] = true
		for d := filepath.ToSlash(filepath.Dir(f.Path)); d != "." && d != "/"; d = filepath.ToSlash(filepath.Dir(d)) {
			owned[d] = true
		}
	}
	var foreign []string
	err = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if e.Type()&os.ModeSymlink != 0 || !owned[rel] {
			foreign = append(foreign, rel)
			if e.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(foreign) > 0 {
		sort.Strings(foreign)
		return fmt.Errorf("output %s holds files dsight did not generate (%s); move them or choose another directory", dir, strings.Join(foreign, ", "))
	}
	return nil
}

// swap moves the staged report into place. On Linux the two directories
// are exchanged in one atomic step and the old report, now at stage, is
// removed. Elsewhere the old report is first renamed aside and restored if
// the final rename fails (or by the next build, if this one is killed in
// between), so at every instant either the old or the new report is
// complete, though for an instant not at dir.
func swap(stage, dir string) error {
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return os.Rename(stage, dir)
	}
	if ok, err := exchange(stage, dir); ok {
		if err != nil {
			return fmt.Errorf("publish report: %w", err)
		}
		return os.RemoveAll(stage)
	}
	return swapByRenames(stage, dir)
}

// swapByRenames is swap without an atomic exchange.
func swapByRenames(stage, dir string) error {
	previous := stage + "-previous"
	if err := os.Rename(dir, previous); err != nil {
		return fmt.Errorf("move previous report aside: %w", err)
	}
	betweenRenames(dir)
	if err := os.Rename(stage, dir); err != nil {
		if rerr := os.Rename(previous, dir); rerr != nil {
			return fmt.Errorf("publish report: %v; restoring the previous report also failed: %v (it is at %s)", err, rerr, previous)
		}
		return fmt.Errorf("publish report: %w", err)
	}
	return os.RemoveAll(previous)
}

// betweenRenames is called when the old report has been moved aside and
// the new one is not yet in place; tests observe the output path there.
var betweenRenames = func(dir string) {}

// stagePrefix names the staging directories of builds into dir. Each
// build holds an exclusive lock (flock) on <stage>.lock while it runs, so a
// later build tells an abandoned stage from a live one by whether it can
// take that lock: a process id would not do, since a build running as
// PID 1 in a container shares its id with every other such build.
func stagePrefix(dir string) string { return "." + filepath.Base(dir) + ".dsight-stage-" }

// newStage creates a locked lock file and then the staging directory it
// guards, in that order, so no other build ever sees the stage unlocked.
func newStage(dir string) (stage string, release func(), err error) {
	lock, err := os.CreateTemp(filepath.Dir(dir), stagePrefix(dir)+strconv.Itoa(os.Getpid())+"-*.lock")
	if err != nil {
		return "", nil, err
	}
	if err := lockFile(lock); err != nil {
		lock.Close()
		os.Remove(lock.Name())
		return "", nil, err
	}
	stage = strings.TrimSuffix(lock.Name(), ".lock")
	release = func() {
		os.RemoveAll(stage)
		os.Remove(lock.Name())
		lock.Close()
	}
	if err := os.Mkdir(stage, 0o755); err != nil {
		release()
		return "", nil, err
	}
	if err := os.Chmod(stage, 0o755); err != nil { // whatever the umask: a report is for publishing
		release()
		return "", nil, err
	}
	return stage, release, nil
}

// removeAbandonedStages deletes staging directories left by builds that were
// killed, never those of a build that is still running.
func removeAbandonedStages(dir string) {
	prefix := stagePrefix(dir)
	parent := filepath.Dir(dir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !e.IsDir() {
			continue
		}
		path := filepath.Join(parent, e.Name())
		lock := strings.TrimSuffix(path, "-previous") + ".lock"
		if stageLive(lock) {
			continue
		}
		if strings.HasSuffix(e.Name(), "-previous") {
			// Killed between the two renames of swap: the old report is
			// complete here and nothing is at dir yet; put it back.
			if _, err := os.Lstat(dir); os.IsNotExist(err) {
				os.Rename(path, dir)
				os.Remove(lock)
				continue
			}
		}
		os.RemoveAll(path)
		os.Remove(lock)
	}
	// Lock files whose stage is gone and whose build is over.
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, prefix) && strings.HasSuffix(name, ".lock") && !e.IsDir() {
			path := filepath.Join(parent, name)
			if _, err := os.Lstat(strings.TrimSuffix(path, ".lock")); os.IsNotExist(err) && !stageLive(path) {
				os.Remove(path)
			}
		}
	}
}
