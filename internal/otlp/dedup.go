package otlp

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"
)

// CheckDuplicate is the Collector's rule for a span whose trace and span
// id an earlier span (kept) carries, for a reader that de-duplicates
// without a Collector (one holding spans on disk, say): nil when sp is an
// identical copy, to be dropped and counted, or the error Collector.Add
// gives for two different spans sharing the ids.
func CheckDuplicate(kept, sp *model.Span) error {
	if diff := contentDiff(kept, sp); diff != "" {
		return &LineError{Path: sp.Ref.Path, Line: sp.Ref.Line, Err: fmt.Errorf(
			"%w: trace %q span %q: %s differs from the copy at %s",
			ErrConflictingDuplicate, sp.TraceID, sp.SpanID, diff, kept.Ref)}
	}
	return nil
}
