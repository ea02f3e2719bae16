package importer

import (
	"fmt"
	"strings"
	"testing"
)

// A run with more client requests than a report holds is refused once the
// client export is read, with a sentence saying what to do, and before any
// server log or OTel export is read: those take most of a big build.
func TestTooManyRequestsAreRefusedBeforeTheServerEvidence(t *testing.T) {
	dir := generatedTracedRun(t, 40)
	spill := t.TempDir()
	res, err := Import(Options{Run: dir, SpillDir: spill})
	if err != nil {
		t.Fatal(err)
	}
	n := len(res.Dataset.Requests)
	defer func(was int) { maxReportRequests = was }(maxReportRequests)

	maxReportRequests = n - 1
	var phases []string
	_, err = Import(Options{Run: dir, SpillDir: spill, Progress: func(p string) { phases = append(phases, p) }})
	if err == nil {
		t.Fatalf("a run of %d requests was built under a limit of %d", n, n-1)
	}
	for _, want := range []string{
		fmt.Sprintf("the client export holds %d requests, more than the %d one report can hold", n, n-1),
		fmt.Sprintf("split the export into parts of at most %d requests", n-1),
	} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
	}
	if len(phases) == 0 || !strings.HasPrefix(phases[len(phases)-1], "reading client exports") {
		t.Fatalf("phases %q: the build went on after the client export", phases)
	}

	maxReportRequests = n // at the limit it builds
	if _, err := Import(Options{Run: dir, SpillDir: spill}); err != nil {
		t.Fatalf("%d requests under a limit of %d: %v", n, n, err)
	}
}
