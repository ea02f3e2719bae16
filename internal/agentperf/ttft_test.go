package agentperf

import (
	"strings"
	"testing"
)

// A NaN, infinite, overflowing or negative ttft is kept as an unknown TTFT
// with a counted warning naming the first file:line, as in the AIPerf
// reader, never a silent null.
func TestInvalidTTFTIsCounted(t *testing.T) {
	var rows []string
	for i, v := range []string{"0.5", "NaN", "-1", "1e400", "Infinity"} {
		row := strings.Replace(rawRow, `"request_id":"r"`, `"request_id":"r`+string(rune('a'+i))+`"`, 1)
		rows = append(rows, strings.Replace(row, `"success":true`, `"success":true,"ttft":`+v, 1))
	}
	res, err := Parse(inputs(strings.Join(rows, "\n")), Options{Phase: "all"})
	if err != nil {
		t.Fatal(err)
	}
	if res.InvalidTTFT != 4 || res.FirstInvalidTTFT != "requests.jsonl:2" {
		t.Fatalf("invalid TTFT %d, first %q", res.InvalidTTFT, res.FirstInvalidTTFT)
	}
	for i, r := range res.Requests {
		if (r.TTFTms == nil) != (i > 0) {
			t.Fatalf("row %d: TTFT %v", i+1, r.TTFTms)
		}
	}
	want := "4 client rows record a TTFT that is NaN, infinite or negative; kept with TTFT unknown (first: requests.jsonl:2)"
	for _, w := range res.Warnings {
		if w == want {
			return
		}
	}
	t.Fatalf("no warning %q in %q", want, res.Warnings)
}
