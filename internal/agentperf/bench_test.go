package agentperf

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// syntheticRun builds a request log and a phase-analysis file whose rows
// carry a response body, the bytes the adapter must skip.
func syntheticRun(rows int) (requests, analysis []byte) {
	var r, a bytes.Buffer
	body := strings.Repeat("lorem ipsum dolor sit amet ", 80)
	for i := range rows {
		start := strconv.FormatFloat(1789642700+float64(i)*0.01, 'f', 7, 64)
		end := strconv.FormatFloat(1789642702+float64(i)*0.01, 'f', 7, 64)
		id := `"request_id":"rec-` + strconv.Itoa(i) + `","user_id":` + strconv.Itoa(i%64) + `,"conversation_id":"conv-` + strconv.Itoa(i%512) + `","conversation_idx":` + strconv.Itoa(i/512)
		r.WriteString(`{"phase_idx":0,` + id + `,"x_request_id":"` + strconv.FormatInt(int64(1e15)+int64(i), 16) + `","start_time":` + start + `,"end_time":` + end + `,"success":true,"ttft":0.25,"server_input_tokens":1000,"server_output_tokens":200,"server_cached_tokens":512}` + "\n")
		a.WriteString(`{` + id + `,"start_time":` + start + `,"end_time":` + end + `,"success":true,"has_output":true,"ttft":0.2512345,"num_chunks":200,"server_input_tokens":1000,"server_output_tokens":200,"response_text":"` + body + `"}` + "\n")
	}
	return r.Bytes(), a.Bytes()
}

func BenchmarkParse(b *testing.B) {
	const rows = 10_000
	requests, analysis := syntheticRun(rows)
	manifest := []byte(`{"phase_idx":0,"settling_end":1789642700.0,"actual_phase_end":1789643000.0}` + "\n")
	b.SetBytes(int64(len(requests) + len(analysis) + len(manifest)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Parse(Inputs{
			Requests: Input{Path: "requests.jsonl", Reader: bytes.NewReader(requests)},
			Manifest: &Input{Path: ManifestName, SourceID: 1, Reader: bytes.NewReader(manifest)},
			Analyses: []Analysis{{Input: Input{Path: "m__phase0__traj1.jsonl", SourceID: 2, Reader: bytes.NewReader(analysis)}}},
		}, Options{Phase: PhaseAll})
		if err != nil || len(res.Requests) != rows || res.LivenessOnly != 0 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
