package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const row1 = `{"metadata":{"x_request_id":"r1","x_correlation_id":"a","root_correlation_id":"s","turn_index":0,"request_start_ns":1789642712000000000,"request_end_ns":1789642720000000000,"benchmark_phase":"profiling"},"metrics":{"time_to_first_token":{"value":3000,"unit":"ms"}}}`
const row2 = `{"metadata":{"x_request_id":"r0","x_correlation_id":"b","request_start_ns":1789642711000000000,"request_end_ns":1789642711500000000,"benchmark_phase":"profiling"},"metrics":{}}`
const warm = `{"metadata":{"x_request_id":"w","request_start_ns":1789642700000000000,"request_end_ns":1789642701000000000,"benchmark_phase":"warmup"},"metrics":{}}`

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestImportAlignsAndAudits(t *testing.T) {
	root := filepath.Join(t.TempDir(), "job-7")
	write(t, root, map[string]string{
		"logs/artifacts/conc8/profile_export.jsonl": warm + "\n" + row1 + "\n\n" + row2 + "\n",
		"logs/slurm-1234.err":                       "srun: job step started\n",
	})
	res, err := Import(Options{Run: root})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if d.Meta.Job != "job-7" || d.Meta.OriginNS != 1789642711000000000 || d.Meta.DurationNS != 9e9 {
		t.Fatalf("meta: %+v", d.Meta)
	}
	if len(d.Requests) != 2 || d.Requests[0].ID != "r0" || d.Requests[0].StartNS != 0 || d.Requests[1].StartNS != 1e9 || *d.Requests[1].FirstNS != 4e9 {
		t.Fatalf("requests not rebased and sorted: %+v", d.Requests)
	}
	if d.Audit["excluded_client_rows"] != 1 || d.Audit["client_requests"] != 2 || d.Audit["sessions"] != 2 {
		t.Fatalf("audit: %v", d.Audit)
	}
	src := d.Sources[0]
	if src.Path != "logs/artifacts/conc8/profile_export.jsonl" || src.Kind != "client" || len(src.SHA256) != 64 || d.Requests[1].Evidence.Line != 2 {
		t.Fatalf("source: %+v evidence %+v", src, d.Requests[1].Evidence)
	}
	if len(d.Unread) != 1 || d.Unread[0] != "logs/slurm-1234.err" || !strings.Contains(strings.Join(d.Meta.Warnings, "\n"), "not read") {
		t.Fatalf("unread files must be reported: %v %v", d.Unread, d.Meta.Warnings)
	}
	if err := res.Verify(); err != nil {
		t.Fatal(err)
	}
}

func TestDiscovery(t *testing.T) {
	for _, place := range []string{"profile_export.jsonl", "agentic/c/profile_export.jsonl", "agentic/c/aiperf_artifacts/profile_export.jsonl", "artifacts/c/profile_export.jsonl"} {
		root := t.TempDir()
		write(t, root, map[string]string{"logs/" + place: row1 + "\n"})
		if _, err := Import(Options{Run: root}); err != nil {
			t.Errorf("%s: %v", place, err)
		}
		// The log directory itself is a run too.
		if _, err := Import(Options{Run: filepath.Join(root, "logs")}); err != nil {
			t.Errorf("%s as log dir: %v", place, err)
		}
	}
}

func TestErrors(t *testing.T) {
	two := map[string]string{"logs/artifacts/a/profile_export.jsonl": row1 + "\n", "logs/artifacts/b/profile_export.jsonl": row2 + "\n"}
	cases := []struct {
		name  string
		files map[string]string
		opt   Options
		want  string
	}{
		{"several exports", two, Options{}, "select one with --client"},
		{"missing explicit client", nil, Options{Client: "nope.jsonl"}, "--client"},
		{"empty export", map[string]string{"logs/profile_export.jsonl": "\n\n"}, Options{}, "no positive recorded time range"},
		{"no sources", map[string]string{"logs/readme.txt": "x"}, Options{}, "no client export found"},
		{"malformed line", map[string]string{"logs/profile_export.jsonl": row1 + "\n{oops\n"}, Options{}, "logs/profile_export.jsonl:2"},
		{"zero-length run", map[string]string{"logs/profile_export.jsonl": strings.Replace(row2, "1789642711500000000", "1789642711000000000", 1) + "\n"}, Options{}, "no positive recorded time range"},
		{"bad phase flag", map[string]string{"logs/profile_export.jsonl": row1}, Options{Phase: "warmup"}, "--phase"},
		{"only warmup", map[string]string{"logs/profile_export.jsonl": warm + "\n"}, Options{}, "warmup is never substituted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, c.files)
			c.opt.Run = root
			if c.opt.Client != "" {
				c.opt.Client = filepath.Join(root, c.opt.Client)
			}
			_, err := Import(c.opt)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
	root := t.TempDir()
	write(t, root, two)
	res, err := Import(Options{Run: root, Client: filepath.Join(root, "logs/artifacts/b/profile_export.jsonl")})
	if err != nil || len(res.Dataset.Requests) != 1 || res.Dataset.Requests[0].ID != "r0" {
		t.Fatalf("--client selection: %v", err)
	}
	// The export not chosen is not silently dropped: it is listed as unread.
	if len(res.Dataset.Unread) != 1 {
		t.Fatalf("unread: %v", res.Dataset.Unread)
	}
}

func TestPhaseAll(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"logs/profile_export.jsonl": warm + "\n" + row1 + "\n"})
	res, err := Import(Options{Run: root, Phase: "all"})
	if err != nil || len(res.Dataset.Requests) != 2 || res.Dataset.Meta.Phase != "all" {
		t.Fatalf("--phase all: %v", err)
	}
}

func TestVerifyDetectsChangedSource(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"logs/profile_export.jsonl": row1 + "\n"})
	res, err := Import(Options{Run: root})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "logs/profile_export.jsonl")
	os.WriteFile(p, []byte(row1+"\n"+row2+"\n"), 0o644)
	later := time.Now().Add(time.Second)
	os.Chtimes(p, later, later)
	if err := res.Verify(); err == nil || !strings.Contains(err.Error(), "changed during the build") {
		t.Fatalf("Verify: %v", err)
	}
}

func TestLegacyFixture(t *testing.T) {
	fixture, err := os.ReadFile("../aiperf/testdata/legacy_run1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	write(t, root, map[string]string{"logs/artifacts/run1/profile_export.jsonl": string(fixture)})
	res, err := Import(Options{Run: root})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dataset.Meta.ClientKind != "aiperf-legacy" || len(res.Dataset.Requests) != 100 {
		t.Fatalf("legacy import: %s, %d requests", res.Dataset.Meta.ClientKind, len(res.Dataset.Requests))
	}
}

// A native AgentPerf run: the request log, its phase manifest and its
// phase-analysis file are each registered as sources and referenced by the
// requests' evidence; the other files beside it stay unread and reported.
func TestAgentPerf(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for _, name := range []string{"requests.jsonl", "phase_manifest.jsonl", "model__4u__phase0__dur30s__settle10s__traj3.jsonl", "notes.jsonl"} {
		b, err := os.ReadFile(filepath.Join("../agentperf/testdata/joined", name))
		if err != nil {
			t.Fatal(err)
		}
		files["logs/agentperf/run1/"+name] = string(b)
	}
	write(t, root, files)
	res, err := Import(Options{Run: root})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if d.Meta.ClientKind != "agentperf" || len(d.Requests) == 0 {
		t.Fatalf("kind %q, %d requests", d.Meta.ClientKind, len(d.Requests))
	}
	kinds := map[string]int{}
	for i, s := range d.Sources {
		if s.ID != i || len(s.SHA256) != 64 {
			t.Fatalf("source %d: %+v", i, s)
		}
		kinds[s.Kind]++
	}
	if kinds["client"] != 1 || kinds["agentperf_phase_manifest"] != 1 || kinds["agentperf_phase_analysis"] != 1 {
		t.Fatalf("sources: %+v", d.Sources)
	}
	for _, r := range d.Requests {
		if r.Evidence.Source < 0 || r.Evidence.Source >= len(d.Sources) {
			t.Fatalf("evidence outside the source list: %+v", r.Evidence)
		}
	}
	if len(d.Unread) != 1 || !strings.HasSuffix(d.Unread[0], "notes.jsonl") {
		t.Fatalf("unread: %v", d.Unread)
	}
	if err := res.Verify(); err != nil {
		t.Fatal(err)
	}
}
