package report

import (
	"io/fs"

	"github.com/dsight/dsight/internal/model"
)

// Stage is a report's staging directory opened before its dataset exists:
// dsight build opens it before the import, so that a target it cannot
// write, or one a build already holds, fails the build at once rather than
// after the import. Begin opens it; Write renders the dataset into it and
// publishes it; Close removes it unless Write published it, and must be
// called.
type Stage struct {
	dir     string // the report's directory (absolute)
	files   *stageFiles
	release func()
}

// Begin opens a stage for the report at dir, as Write does before it
// renders: checked against the run at run, with the stages builds left
// behind removed and the lock held.
func Begin(dir, run string) (*Stage, error) {
	dir, files, release, err := openStage(dir, run)
	if err != nil {
		return nil, err
	}
	return &Stage{dir: dir, files: files, release: release}, nil
}

// Write renders d into the stage and publishes it at the Stage's
// directory, as the package's Write does.
func (s *Stage) Write(d *model.Dataset, assets fs.FS, opt Options) (*Manifest, error) {
	if err := checkTarget(s.dir, d.Meta.SourceRoot); err != nil {
		return nil, err
	}
	return writeStaged(d, assets, s.dir, s.files, opt)
}

// Close removes the stage (the previous report, once Write has published)
// and releases its lock.
func (s *Stage) Close() { s.release() }
