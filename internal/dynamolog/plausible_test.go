package dynamolog

import (
	"strings"
	"testing"
)

// Timestamps that are no real date and time, or lie outside MinYear to
// MaxYear, are kept as text without an epoch time and counted with their
// first line, in frontend and worker logs alike.
func TestImplausibleTimestampsAreCounted(t *testing.T) {
	for _, raw := range []string{"2026-13-45T25:61:61Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-02-30T00:00:00Z", "1970-01-01T00:00:00Z"} {
		if ts := newTimestamp(raw); ts.UnixNS != nil || !BadTime(ts) {
			t.Errorf("%s: kept as a time (%v) or not counted", raw, ts.UnixNS)
		}
	}
	for _, raw := range []string{"2026-09-17T10:58:31Z", "2028-02-29T23:59:60Z", "2026-09-17T10:58:31.5", "2026-09-17 10:58:31"} {
		if BadTime(newTimestamp(raw)) {
			t.Errorf("%s: counted as implausible", raw)
		}
	}
	front := "2026-09-17T10:58:31Z x_request_id=\"a\" dynamo.request.id=22222222-2222-4222-8222-222222222222\n" +
		"9999-12-31T23:59:59Z x_request_id=\"b\" dynamo.request.id=33333333-3333-4333-8333-333333333333\n"
	log, err := ScanFrontend(strings.NewReader(front), "f.out")
	if err != nil {
		t.Fatal(err)
	}
	if log.BadTimes != 1 || log.FirstBadTime != 2 || log.Bridges[1].Time.Raw != "9999-12-31T23:59:59Z" || log.Bridges[1].Time.UnixNS != nil {
		t.Fatalf("frontend: %d bad, first %d, %+v", log.BadTimes, log.FirstBadTime, log.Bridges[1].Time)
	}
}
