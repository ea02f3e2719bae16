package report

import "github.com/dsight/dsight/internal/model"

// evidenceCount is the number of requests with server evidence.
func evidenceCount(d *model.Dataset) int {
	if d.StreamedEvidence != nil {
		return d.StreamedEvidence.Len()
	}
	return len(d.Evidence)
}
