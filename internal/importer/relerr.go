package importer

import (
	"path/filepath"
	"strings"
)

// relError is an import error whose text names files relative to the run,
// as every reader's file:line does, whichever reader produced it (the
// capture readers are handed absolute paths to open). It unwraps to the
// error it rewrites.
type relError struct {
	msg string
	err error
}

func (e *relError) Error() string { return e.msg }
func (e *relError) Unwrap() error { return e.err }

// runRelative rewrites the absolute paths below root in err's text.
func runRelative(root string, err error) error {
	prefix := root + string(filepath.Separator)
	msg := err.Error()
	if !strings.Contains(msg, prefix) {
		return err
	}
	return &relError{msg: strings.ReplaceAll(msg, prefix, ""), err: err}
}
