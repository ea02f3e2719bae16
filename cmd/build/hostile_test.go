package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lifecycleRun writes the reference's traced run (join/testdata/write_run
// under logs/, with its client export) and returns its directory.
func lifecycleRun(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "run")
	src := "../../internal/importer/join/testdata/write_run"
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(root, "logs", rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "logs/agentic/conc_2/aiperf_artifacts/profile_export.jsonl"), `{"metadata":{"x_request_id":"11111111-1111-4111-8111-111111111111","x_correlation_id":"agent-a","root_correlation_id":"session-a","request_start_ns":1789642711000000000,"request_end_ns":1789642719000000000,"benchmark_phase":"profiling"},"metrics":{"time_to_first_token":{"value":3000,"unit":"ms"}}}
{"metadata":{"x_request_id":"client-only","x_correlation_id":"session-b","request_start_ns":1789642720000000000,"request_end_ns":1789642721000000000,"benchmark_phase":"profiling","was_cancelled":true},"metrics":{}}
`)
	return root
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// buildError runs a build that must fail and returns its error message.
func buildError(t *testing.T, args ...string) string {
	t.Helper()
	code, _, stderr := dsight(t, append([]string{"build"}, args...)...)
	if code != 1 {
		t.Fatalf("build %v: exit %d, want 1 (stderr %q)", args, code, stderr)
	}
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(stderr), &e); err != nil {
		t.Fatalf("error output is not the JSON error record: %q", stderr)
	}
	return e.Error
}

// A build must not publish a report its own readers refuse: server
// evidence whose chunk exceeds the readers' bound is refused at build time,
// naming the span that makes it large.
func TestBuildRefusesEvidenceOverReaderLimits(t *testing.T) {
	needAssets(t)
	run := lifecycleRun(t)
	traces := filepath.Join(run, "logs/otel/collector/traces.jsonl")
	for i, id := range []string{"big1", "big2"} {
		// Two distinct values: the chunk's string table would share equal ones.
		big := strings.Repeat(string(rune('a'+i)), 40<<20)
		span := `{"spanId":"` + id + `","traceId":"1234567890abcdef1234567890abcdef","parentSpanId":"root","name":"big.attribute","startTimeUnixNano":"17896427110` + string(rune('2'+i)) + `0000000","endTimeUnixNano":"1789642711300000000","attributes":[{"key":"dynamo.request.id","value":{"stringValue":"22222222-2222-4222-8222-222222222222"}},{"key":"blob","value":{"stringValue":"` + big + `"}}]}`
		appendFile(t, traces, `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"dynamo"}}]},"scopeSpans":[{"spans":[`+span+`]}]}]}`+"\n")
	}
	msg := buildError(t, run, "-o", filepath.Join(t.TempDir(), "report"))
	if !strings.Contains(msg, "logs/otel/collector/traces.jsonl:") || !strings.Contains(msg, "over the 67108864") {
		t.Fatalf("error %q does not name the file:line and the readers' limit", msg)
	}
}

// buildErrorWithin is buildError that fails instead of blocking when the
// build does not finish in time.
func buildErrorWithin(t *testing.T, d time.Duration, args ...string) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		code, _, stderr := dsight(t, append([]string{"build"}, args...)...)
		if code != 1 {
			stderr = "exit " + strconv.Itoa(code) + ": " + stderr
		}
		done <- stderr
	}()
	select {
	case stderr := <-done:
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal([]byte(stderr), &e); err != nil {
			t.Fatalf("build %v: not the JSON error record: %q", args, stderr)
		}
		return e.Error
	case <-time.After(d):
		t.Fatalf("build %v still running after %v: it blocks", args, d)
		return ""
	}
}

// A named pipe at an input path is refused with its path, never read
// (reading one blocks until something writes to it).
func TestBuildRefusesNamedPipes(t *testing.T) {
	needAssets(t)
	for _, rel := range []string{
		"logs/agentic/conc_2/aiperf_artifacts/profile_export.jsonl",
		"logs/otel/collector/traces.jsonl",
		"logs/decode-host_decode_w0.out",
	} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			run := lifecycleRun(t)
			p := filepath.Join(run, rel)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no named pipes here:", err)
			}
			msg := buildErrorWithin(t, 60*time.Second, run, "-o", filepath.Join(t.TempDir(), "report"))
			if !strings.Contains(msg, filepath.Base(rel)) || !strings.Contains(msg, "named pipe") {
				t.Fatalf("error %q does not name the pipe", msg)
			}
		})
	}
}

// An output inside the run would be read as input by the run's next build.
func TestBuildRefusesOutputInsideRun(t *testing.T) {
	needAssets(t)
	run := lifecycleRun(t)
	for _, out := range []string{filepath.Join(run, "report"), filepath.Join(run, "logs", "deep", "report")} {
		msg := buildError(t, run, "-o", out)
		if !strings.Contains(msg, "inside the run directory") {
			t.Fatalf("output %s: %q", out, msg)
		}
	}
	// Reached through a symlink into the run, too.
	link := filepath.Join(t.TempDir(), "into-run")
	if err := os.Symlink(filepath.Join(run, "logs"), link); err != nil {
		t.Fatal(err)
	}
	if msg := buildError(t, run, "-o", filepath.Join(link, "report")); !strings.Contains(msg, "inside the run directory") {
		t.Fatalf("output through a link: %q", msg)
	}
}

// smallDisk mounts a tmpfs of size bytes for the test, or skips.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// A full disk is found before the import, not after it.
func TestBuildChecksOutputBeforeImport(t *testing.T) {
	needAssets(t)
	disk := smallDisk(t, "16k")
	run := lifecycleRun(t)
	// The export is broken too: the output is checked first.
	appendFile(t, filepath.Join(run, "logs/agentic/conc_2/aiperf_artifacts/profile_export.jsonl"), "{\"metadata\": {truncated\n")
	msg := buildError(t, run, "-o", filepath.Join(disk, "report"))
	if !strings.Contains(msg, "not writable") || !strings.Contains(msg, "no space left on device") {
		t.Fatalf("error %q does not say the output disk is full", msg)
	}
}

// When the disk fills during the write, the first write error is the one
// reported, not the missing file it leaves behind.
func TestBuildReportsFirstWriteError(t *testing.T) {
	needAssets(t)
	disk := smallDisk(t, "1m")
	msg := buildError(t, genRun(t), "-o", filepath.Join(disk, "report"), "--iteration-timezone", "UTC")
	if !strings.Contains(msg, "no space left on device") || strings.Contains(msg, "no such file") {
		t.Fatalf("error %q is not the first write error", msg)
	}
}

// Bidirectional controls from inputs reach the terminal escaped, never raw.
func TestQueryEscapesBidiControls(t *testing.T) {
	needAssets(t)
	run := lifecycleRun(t)
	id := "evil\u202egnp.exe\u2066x"
	writeFile(t, filepath.Join(run, "logs/agentic/conc_2/aiperf_artifacts/profile_export.jsonl"),
		`{"metadata":{"x_request_id":"`+id+`","request_start_ns":1789642711000000000,"request_end_ns":1789642719000000000,"benchmark_phase":"profiling"},"metrics":{}}`+"\n")
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", run, "-o", out); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := dsight(t, "query", out, "requests")
	if code != 0 {
		t.Fatal(stderr)
	}
	if strings.ContainsAny(stdout, "\u202e\u2066") {
		t.Fatalf("raw bidi controls in the output: %q", stdout)
	}
	var got struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || len(got.Items) != 1 || got.Items[0].ID != id {
		t.Fatalf("escaped output does not decode to the id: %v %+v", err, got)
	}
}
