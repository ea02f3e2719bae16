package sqlstore

import "github.com/dsight/dsight/internal/model"

// eachEvidence calls f with every request's server evidence in index
// order: the records the dataset holds, or, for a build that streamed its
// join, the encoded records read back one chunk at a time, so the store
// never needs every span at once.
func eachEvidence(d *model.Dataset, f func(k int, ev *model.RequestEvidence) error) error {
	if d.StreamedEvidence != nil {
		return d.StreamedEvidence.Each(f)
	}
	for k := range d.Evidence {
		if err := f(k, &d.Evidence[k]); err != nil {
			return err
		}
	}
	return nil
}

// evidenceLen is the number of requests with server evidence.
func evidenceLen(d *model.Dataset) int {
	if d.StreamedEvidence != nil {
		return d.StreamedEvidence.Len()
	}
	return len(d.Evidence)
}
