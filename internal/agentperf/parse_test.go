package agentperf

import (
	"strings"
	"testing"
)

const (
	rawRow      = `{"phase_idx":0,"request_id":"r","user_id":1,"conversation_id":"c","conversation_idx":0,"start_time":1789642700.0,"end_time":1789642701.0,"success":true}`
	manifestRow = `{"phase_idx":0,"settling_end":1789642690.0,"actual_phase_end":1789642710.0}`
)

// inputs builds a run from texts: the request log, then optionally the
// manifest ("" for none) and analysis files.
func inputs(requests string, more ...string) Inputs {
	var manifest string
	var analyses []string
	if len(more) > 0 {
		manifest, analyses = more[0], more[1:]
	}
	in := Inputs{Requests: Input{Path: "requests.jsonl", Reader: strings.NewReader(requests)}}
	if manifest != "" {
		in.Manifest = &Input{Path: "phase_manifest.jsonl", SourceID: 1, Reader: strings.NewReader(manifest)}
	}
	for i, a := range analyses {
		name := "model__phase0__traj" + string(rune('1'+i)) + ".jsonl"
		in.Analyses = append(in.Analyses, Analysis{Input: Input{Path: name, SourceID: 2 + i, Reader: strings.NewReader(a)}})
	}
	return in
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   Inputs
		want string
	}{
		{"duplicate manifest phase", inputs(rawRow, manifestRow+"\n\n"+manifestRow), "phase_manifest.jsonl:3: duplicate phase 0 (first on line 1)"},
		{"manifest without phase", inputs(rawRow, `{"settling_end":1,"actual_phase_end":2}`), "phase_manifest.jsonl:1: invalid AgentPerf phase manifest record: phase_idx is missing"},
		{"manifest non-finite", inputs(rawRow, `{"phase_idx":0,"settling_end":NaN,"actual_phase_end":2}`), "settling_end NaN: non-finite AgentPerf time"},
		{"duplicate analysis identity", inputs(rawRow, "", rawRow+"\n"+rawRow), "model__phase0__traj1.jsonl:2: ambiguous AgentPerf analysis identity"},
		{"duplicate identity across analysis files", inputs(rawRow, "", rawRow, strings.Replace(rawRow, `"user_id":1`, `"user_id":1.0`, 1)), "model__phase0__traj2.jsonl:1: ambiguous AgentPerf analysis identity (phase 0, request_id \"r\", user_id 1.0, conversation_id \"c\", conversation_idx 0) (also model__phase0__traj1.jsonl:1)"},
		{"malformed analysis", inputs(rawRow, "", "{\"a\":"), "model__phase0__traj1.jsonl:1: invalid AgentPerf phase-analysis record: invalid JSON"},
		{"malformed request", inputs(rawRow + "\n{"), "requests.jsonl:2: invalid client record: invalid JSON"},
		{"non-finite start", inputs(strings.Replace(rawRow, "1789642700.0", "NaN", 1)), "requests.jsonl:1: invalid client record: start_time NaN: non-finite AgentPerf time"},
		{"infinite end", inputs(strings.Replace(rawRow, "1789642701.0", "Infinity", 1)), "end_time Infinity: non-finite AgentPerf time"},
		{"overflowing end", inputs(strings.Replace(rawRow, "1789642701.0", "1e400", 1)), "end_time 1e400: non-finite AgentPerf time"},
		{"end out of range", inputs(strings.Replace(rawRow, "1789642701.0", "1e12", 1)), "end_time 1e12: out of the int64 range"},
		{"non-finite analysis time names the analysis line", inputs(rawRow, "", "\n"+strings.Replace(rawRow, "1789642700.0", "-Infinity", 1)), "model__phase0__traj1.jsonl:2: invalid AgentPerf phase-analysis record: start_time -Infinity: non-finite AgentPerf time"},
		{"end before start", inputs(strings.Replace(rawRow, "1789642701.0", "1789642699.5", 1)), "requests.jsonl:1: invalid client record: request ends before it starts"},
		{"missing start_time", inputs(`{"request_id":"r","end_time":1}`), "requests.jsonl:1: invalid client record: start_time is missing"},
		{"AIPerf row", inputs(`{"metadata":{},"start_time":1}`), "an AIPerf record"},
		{"string time", inputs(`{"start_time":"1789642700.0","end_time":1}`), "start_time is not a number"},
		{"duplicate request id", inputs(rawRow + "\n" + strings.Replace(rawRow, `"conversation_idx":0`, `"conversation_idx":1`, 1)), `requests.jsonl:2: duplicate request id "r" (first on line 1)`},
		{"ambiguous request-log join", inputs(rawRow+"\n"+strings.Replace(rawRow, `"request_id":"r"`, `"request_id":"r","x_request_id":"other"`, 1), "", rawRow), "requests.jsonl:2: invalid client record: ambiguous AgentPerf request-log identity"},
		{"every row settling", inputs(rawRow, strings.Replace(manifestRow, "1789642690.0", "1789642705.0", 1)), `requests.jsonl: no client requests for phase "profiling" (1 rows excluded); warmup is never substituted`},
		{"fractional tokens", inputs(strings.Replace(rawRow, `"success":true`, `"server_input_tokens":1.5`, 1)), "server_input_tokens 1.5: not an integer"},
		{"success not boolean", inputs(strings.Replace(rawRow, `"success":true`, `"success":"yes"`, 1)), "success is not a boolean"},
		{"object identity", inputs(strings.Replace(rawRow, `"user_id":1`, `"user_id":{}`, 1)), "user_id is not a scalar"},
		{"line too long", Inputs{Requests: Input{Path: "requests.jsonl", Reader: strings.NewReader(rawRow + "\n" + strings.Repeat(" ", 201))}}, "requests.jsonl:2: line too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(tc.in, Options{MaxLineBytes: 200})
			if err == nil {
				t.Fatalf("got %d requests, want error containing %q", len(res.Requests), tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestExactSeconds(t *testing.T) {
	row := strings.NewReplacer("1789642700.0", "1789642700.123456789987", "1789642701.0", "1789642701.000000001", `"success":true`, `"ttft":0.0000000019`).Replace(rawRow)
	res, err := Parse(inputs(row), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Requests[0]
	if r.StartNS != 1789642700123456789 || r.EndNS != 1789642701000000001 || *r.FirstNS != r.StartNS+1 {
		t.Fatalf("start %d end %d first %d: sub-ns digits must be truncated, never rounded through float64", r.StartNS, r.EndNS, *r.FirstNS)
	}
	if *r.OriginalStart != "1789642700.123456789987" {
		t.Fatalf("original start %q", *r.OriginalStart)
	}
}

func TestHostileIdentityIsData(t *testing.T) {
	row := strings.Replace(rawRow, `"request_id":"r"`, `"x_request_id":"<img src=x onerror=alert(1)>","request_id":"r"`, 1)
	row = strings.Replace(row, `"user_id":1`, `"user_id":"</script>"`, 1)
	res, err := Parse(inputs(row), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Requests[0]
	if r.ID != "<img src=x onerror=alert(1)>" || r.Session != "phase-0/user-</script>/conversation-c" {
		t.Fatalf("id %q session %q", r.ID, r.Session)
	}
}

func TestEmptyRequestLog(t *testing.T) {
	res, err := Parse(inputs("\n \n", manifestRow, rawRow), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 0 || len(res.Requests) != 0 || len(res.Warnings) != 0 || res.UnmatchedAnalysis != 1 {
		t.Fatalf("got %+v", res)
	}
}

func TestAnalysisPhase(t *testing.T) {
	tests := map[string]int64{
		"model__4u__phase0__dur30s__settle10s__traj3.jsonl": 0,
		"model__phase12__traj1.jsonl":                       12,
		"x__phaseA__y__phase3__traj.jsonl":                  3,
	}
	for name, want := range tests {
		if got, ok := AnalysisPhase(name); !ok || got != want {
			t.Errorf("AnalysisPhase(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
	for _, name := range []string{"requests.jsonl", "model__phaseX__traj1.jsonl", "model__phase0__traj1.json", "model__traj1__phase0__.jsonl", ".model__phase0__traj1.jsonl", "model__phase0_traj1.jsonl"} {
		if _, ok := AnalysisPhase(name); ok {
			t.Errorf("AnalysisPhase(%q) matched", name)
		}
	}
}

func TestIsNativeRow(t *testing.T) {
	if !IsNativeRow([]byte(rawRow)) {
		t.Error("request-log row not detected")
	}
	for _, line := range []string{`{"metadata":{},"start_time":1}`, `{"end_time":1}`, `[1]`, `{`} {
		if IsNativeRow([]byte(line)) {
			t.Errorf("IsNativeRow(%s) = true", line)
		}
	}
}

func TestCompanions(t *testing.T) {
	manifest, analyses, err := Companions("testdata/joined/requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if manifest != "testdata/joined/phase_manifest.jsonl" || len(analyses) != 1 || !strings.HasSuffix(analyses[0], "model__4u__phase0__dur30s__settle10s__traj3.jsonl") {
		t.Fatalf("got %q %q", manifest, analyses)
	}
	// Analysis files are companions of requests.jsonl only.
	if _, analyses, _ := Companions("testdata/joined/other.jsonl"); analyses != nil {
		t.Fatalf("analyses for a differently named export: %q", analyses)
	}
}
