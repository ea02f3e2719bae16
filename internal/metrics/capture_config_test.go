package metrics

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/tachometer"
)

// configuredRun writes a log directory whose capture rows carry only the
// gpu column, so host and worker can come only from the scraper
// configuration, and returns it with the configuration's path.
func configuredRun(t *testing.T) (logDir, config string) {
	t.Helper()
	logDir = filepath.Join(t.TempDir(), "logs")
	leaf := filepath.Join(logDir, filepath.FromSlash(tachometer.DefaultRoot), "capture-1")
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		t.Fatal(err)
	}
	series := []tachometer.CaptureSeries{
		{Endpoint: "dcgm_node-a", Name: `DCGM_FI_DEV_GPU_UTIL{gpu="0"}`, Extra: []string{"0"}},
		{Endpoint: "dcgm_node-a", Name: `DCGM_FI_DEV_GPU_UTIL{gpu="1"}`, Extra: []string{"1"}},
		{Endpoint: "frontend0", Name: "dynamo_frontend_inflight_requests", Extra: []string{""}},
	}
	var rows []tachometer.CaptureSample
	for s := range series {
		for k := range 5 {
			rows = append(rows, tachometer.CaptureSample{Series: int32(s), TimeNS: captureT0 + int64(k)*captureSec, Value: float64(k + s)})
		}
	}
	writeCaptureFile(t, filepath.Join(leaf, tachometer.FinalName), tachometer.EncodingParquet, series, rows,
		tachometer.CaptureOptions{Extra: []string{"gpu"}, StartNS: captureT0})
	// GPU 0 in the scraper's spelling, GPU 1 in srt-slurm's test-config one.
	config = filepath.Join(logDir, tachometer.ConfigName)
	writeFile(t, config, `storage = "file:///tmp/scrape"

[[endpoints]]
name = "dcgm_node-a"
url = "http://node-a:9400/metrics"
frequency = 1.0
filter = "dcgm"
[endpoints.node_metadata]
"hostname" = "node-a"
[endpoints.gpu_metadata]
"0" = { "worker_index" = "0", "worker_process" = "0", "worker_role" = "prefill" }
"1" = { endpoint = "decode", endpoint_index = "1", rank_index = "0" }

[[endpoints]]
name = "frontend0"
url = "http://node-f:8000/metrics"
frequency = 1.0
[endpoints.node_metadata]
"frontend_index" = "0"
"hostname" = "node-f"
`)
	return logDir, config
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readConfigured(t *testing.T, logDir string) (*Result, *registry, error) {
	t.Helper()
	reg := &registry{}
	r, err := Read(Options{LogDir: logDir, OriginNS: captureT0, LastNS: captureT0 + 10*captureSec, Register: reg.register})
	return r, reg, err
}

// identity is what a capture series says about where it was measured.
type identity struct{ host, worker, process string }

func identities(series []model.MetricSeries) map[string]identity {
	deref := func(s *string) string {
		if s == nil {
			return "<nil>"
		}
		return *s
	}
	out := map[string]identity{}
	for _, s := range series {
		key := s.Endpoint + " gpu " + deref(s.GPU)
		out[key] = identity{deref(s.Host), deref(s.Worker), deref(s.WorkerProcess)}
	}
	return out
}

func TestCollectorConfigIdentifiesCaptureRows(t *testing.T) {
	logDir, config := configuredRun(t)
	r, reg, err := readConfigured(t, logDir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]identity{
		"dcgm_node-a gpu 0":   {"node-a", "prefill-0", "0"},
		"dcgm_node-a gpu 1":   {"node-a", "decode-1", "<nil>"},
		"frontend0 gpu <nil>": {"node-f", "frontend", "<nil>"},
	}
	if got := identities(r.Series); !maps.Equal(got, want) {
		t.Errorf("identities = %v, want %v", got, want)
	}
	// The configuration is evidence of its own, registered before the
	// capture files it describes.
	if len(reg.paths) != 2 || reg.paths[0] != config || reg.kinds[0] != "collector_config" || reg.kinds[1] != "tachometer_raw" {
		t.Errorf("registered %v as %v", reg.paths, reg.kinds)
	}

	// The host's provenance is the configuration, not a raw label.
	c, err := tachometer.Discover(filepath.Join(logDir, filepath.FromSlash(tachometer.DefaultRoot)), false)
	if err != nil {
		t.Fatal(err)
	}
	endpoints, err := tachometer.ReadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var col collector
	if _, err := tachometer.Read(c, tachometer.Options{Endpoints: endpoints}, &col); err != nil {
		t.Fatal(err)
	}
	for _, info := range col.infos {
		if info.HostSource != tachometer.HostFromConfig || info.RawHost != "" {
			t.Errorf("%s on %s: host %q from %q (raw %q)", info.RawName, info.Endpoint, info.Host, info.HostSource, info.RawHost)
		}
	}
}

func TestCaptureWithoutCollectorConfig(t *testing.T) {
	logDir, config := configuredRun(t)
	if err := os.Remove(config); err != nil {
		t.Fatal(err)
	}
	r, reg, err := readConfigured(t, logDir)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing else records host or worker: they stay unknown, except the
	// frontend, which its endpoint name identifies.
	want := map[string]identity{
		"dcgm_node-a gpu 0":   {"<nil>", "<nil>", "<nil>"},
		"dcgm_node-a gpu 1":   {"<nil>", "<nil>", "<nil>"},
		"frontend0 gpu <nil>": {"<nil>", "frontend", "<nil>"},
	}
	if got := identities(r.Series); !maps.Equal(got, want) {
		t.Errorf("identities = %v, want %v", got, want)
	}
	for _, k := range reg.kinds {
		if k != KindCapture {
			t.Errorf("registered %v as %v", reg.paths, reg.kinds)
		}
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings %q; a missing configuration is not one", r.Warnings)
	}
}

func TestMalformedCollectorConfigFailsTheRead(t *testing.T) {
	logDir, config := configuredRun(t)
	writeFile(t, config, "[[endpoints]]\nname = \"dcgm_node-a\"\n[endpoints.node_metadata]\nhostname = 7\n")
	_, _, err := readConfigured(t, logDir)
	if err == nil || !strings.HasPrefix(err.Error(), config+":4: ") {
		t.Fatalf("error = %v, want one naming %s:4", err, config)
	}
	writeFile(t, config, "[[endpoints]\nname = \"x\"\n")
	if _, _, err = readConfigured(t, logDir); err == nil || !strings.HasPrefix(err.Error(), config+":1: invalid TOML") {
		t.Fatalf("error = %v, want one naming %s:1", err, config)
	}
}
