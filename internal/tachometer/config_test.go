package tachometer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/golden"
)

func TestParseConfig(t *testing.T) {
	prefill := GPU{WorkerRole: "prefill", WorkerIndex: "0"}
	for _, tc := range []struct {
		name string
		toml string
		want map[string]Endpoint
		err  string // the error; one ending in ": " is its start (the decoder's own message follows)
	}{
		{
			name: "scraper spelling",
			toml: `
[[endpoints]]
name = "dcgm_node-a"
[endpoints.node_metadata]
"hostname" = "node-a"
[endpoints.gpu_metadata]
"0" = { "worker_index" = "0", "worker_process" = "7", "worker_role" = "prefill" }
`,
			want: map[string]Endpoint{"dcgm_node-a": {Hostname: "node-a", GPUs: map[string]GPU{"0": {WorkerRole: "prefill", WorkerIndex: "0", WorkerProcess: "7"}}}},
		},
		{
			name: "test-config spelling",
			toml: `
[[endpoints]]
name = "prefill_node"
[endpoints.gpu_metadata]
"0" = { endpoint = "prefill", endpoint_index = "0", rank_index = "0" }
1 = { endpoint = "decode", endpoint_index = "3" }
`,
			want: map[string]Endpoint{"prefill_node": {GPUs: map[string]GPU{"0": prefill, "1": {WorkerRole: "decode", WorkerIndex: "3"}}}},
		},
		{
			name: "both spellings agreeing",
			toml: "[[endpoints]]\nname = \"a\"\ngpu_metadata.0 = { worker_role = \"prefill\", endpoint = \"prefill\", endpoint_index = \"0\" }\n",
			want: map[string]Endpoint{"a": {GPUs: map[string]GPU{"0": prefill}}},
		},
		{
			name: "both spellings disagreeing",
			toml: "[[endpoints]]\nname = \"a\"\n[endpoints.gpu_metadata.0]\nworker_index = \"0\"\nendpoint_index = \"1\"\n",
			err:  `cfg.toml:5: endpoint_index "1" disagrees with worker_index "0"`,
		},
		{
			name: "empty values stay empty",
			toml: "[[endpoints]]\nname = \"a\"\nnode_metadata = { hostname = \"\" }\ngpu_metadata = { \"0\" = {} }\n",
			want: map[string]Endpoint{"a": {GPUs: map[string]GPU{"0": {}}}},
		},
		{
			name: "no endpoints",
			toml: "storage = \"file:///tmp/x\"\n",
			want: map[string]Endpoint{},
		},
		{
			name: "no metadata",
			toml: "[[endpoints]]\nname = \"frontend\"\nurl = \"http://h:8000/metrics\"\nfrequency = 1.0\n",
			want: map[string]Endpoint{"frontend": {}},
		},
		{
			name: "unknown keys may hold anything",
			toml: "when = 1979-05-27T07:32:00Z\n[[endpoints]]\nname = \"a\"\nurl = 3\nfrequency = \"often\"\nfilter = [1, 2]\nnode_metadata = { job_id = 1234, hostname = \"h\" }\n[endpoints.gpu_metadata]\n0 = { rank_index = 0, worker_role = \"agg\" }\n",
			want: map[string]Endpoint{"a": {Hostname: "h", GPUs: map[string]GPU{"0": {WorkerRole: "agg"}}}},
		},
		{
			name: "inline array of endpoints",
			toml: "endpoints = [\n  { name = \"a\", node_metadata = { hostname = \"h\" } },\n  { name = \"b\" },\n]\n",
			want: map[string]Endpoint{"a": {Hostname: "h"}, "b": {}},
		},
		{
			name: "malformed TOML",
			toml: "[[endpoints]]\nname = \"a\"\nurl = http://h/metrics\n",
			err:  "cfg.toml:3: invalid TOML: ",
		},
		{
			name: "unclosed header",
			toml: "[[endpoints]\nname = \"a\"\n",
			err:  "cfg.toml:1: invalid TOML: ",
		},
		{
			name: "byte-order mark",
			toml: "\ufeff[[endpoints]]\nname = 1\n",
			err:  "cfg.toml:2: endpoints[1].name is an integer, want a string",
		},
		{
			name: "key defined twice",
			toml: "[[endpoints]]\nname = \"a\"\nname = \"b\"\n",
			err:  "cfg.toml:3: invalid TOML: ",
		},
		{
			name: "name not a string",
			toml: "[[endpoints]]\nname = \"a\"\n\n[[endpoints]]\nurl = \"x\"\nname = 7\n",
			err:  "cfg.toml:6: endpoints[2].name is an integer, want a string",
		},
		{
			name: "no name",
			toml: "[[endpoints]]\nname = \"a\"\n\n[[endpoints]] # the second\nurl = \"x\"\n",
			err:  "cfg.toml:4: endpoint 2 has no name",
		},
		{
			name: "duplicate name",
			toml: "[[endpoints]]\nname = \"a\"\n[[endpoints]]\nname = \"b\"\n[[endpoints]]\n\nname = \"a\"\n",
			err:  `cfg.toml:7: duplicate endpoint name "a" (first at line 2)`,
		},
		{
			name: "endpoints not an array",
			toml: "# header\nendpoints = \"dcgm\"\n",
			err:  "cfg.toml:2: endpoints is a string, want an array of tables",
		},
		{
			name: "endpoint not a table",
			toml: "endpoints = [\n  { name = \"a\" },\n  \"b\",\n]\n",
			err:  "cfg.toml:3: endpoint 2 is a string, want a table",
		},
		{
			name: "hostname not a string",
			toml: "[[endpoints]]\nname = \"a\"\nnode_metadata.hostname = 5\n",
			err:  "cfg.toml:3: endpoints[1].node_metadata.hostname is an integer, want a string",
		},
		{
			name: "node_metadata not a table",
			toml: "[[endpoints]]\nname = \"a\"\nnode_metadata = \"node-a\"\n",
			err:  "cfg.toml:3: endpoints[1].node_metadata is a string, want a table",
		},
		{
			name: "gpu_metadata not a table",
			toml: "[[endpoints]]\nname = \"a\"\ngpu_metadata = [1]\n",
			err:  "cfg.toml:3: endpoints[1].gpu_metadata is an array, want a table",
		},
		{
			name: "gpu entry not a table",
			toml: "[[endpoints]]\nname = \"a\"\n[endpoints.gpu_metadata]\n\"0\" = { worker_role = \"decode\" }\n\"1\" = \"decode\"\n",
			err:  "cfg.toml:5: endpoints[1].gpu_metadata.1 is a string, want a table",
		},
		{
			name: "worker index not a string",
			toml: "[[endpoints]]\nname = \"a\"\n[[endpoints]]\nname = \"b\"\n[endpoints.gpu_metadata]\n\"0\" = { worker_role = \"decode\",\n  worker_index = 0 }\n",
			err:  "cfg.toml:7: endpoints[2].gpu_metadata.0.worker_index is an integer, want a string",
		},
		{
			name: "lines counted through multi-line strings",
			toml: "note = \"\"\"\n[[endpoints]]\nname = 1\n\"\"\"\nraw = '''\n\n'''\n[[endpoints]]\nname = \"a\"\nnode_metadata = { hostname = 1.5 }\n",
			err:  "cfg.toml:10: endpoints[1].node_metadata.hostname is a float, want a string",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConfig("cfg.toml", strings.NewReader(tc.toml))
			if tc.err != "" {
				matches := err != nil && err.Error() == tc.err
				if strings.HasSuffix(tc.err, ": ") {
					matches = err != nil && strings.HasPrefix(err.Error(), tc.err)
				}
				if !matches {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("endpoints = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReadConfigMissingFile(t *testing.T) {
	_, err := ReadConfig(filepath.Join(t.TempDir(), ConfigName))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error = %v, want one that is fs.ErrNotExist", err)
	}
}

func TestParseConfigTooLarge(t *testing.T) {
	_, err := ParseConfig("big.toml", strings.NewReader(strings.Repeat("#", maxConfigBytes+1)))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("error = %v", err)
	}
}

// TestGoldenConfig reads a configuration laid out the way srt-slurm
// generates it, plus the spellings of its test configuration.
func TestGoldenConfig(t *testing.T) {
	got, err := ReadConfig("testdata/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.MarshalIndent(got, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/config.golden.json", append(doc, '\n'))
}

func FuzzParseConfig(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/config*.toml")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("endpoints = [\n{ name = \"a\" },\n{ name = \"a\" }]\n")
	f.Add("[[endpoints]]\nname = \"a\"\n[endpoints.gpu_metadata.\"0\"]\nendpoint = \"x\"\nworker_role = \"y\"\n")
	f.Fuzz(func(t *testing.T, doc string) {
		defer fuzzlimit.Start(t)()
		// The line scanner runs only on errors; it must stop on any input.
		for _, line := range scanKeyLines([]byte(doc)) {
			if line < 1 || line > strings.Count(doc, "\n")+1 {
				t.Fatalf("key recorded at line %d of a %d-line input", line, strings.Count(doc, "\n")+1)
			}
		}
		got, err := ParseConfig("f.toml", strings.NewReader(doc))
		if err != nil {
			// Every error names the file, and a line the input has.
			rest, ok := strings.CutPrefix(err.Error(), "f.toml:")
			if !ok {
				t.Fatalf("error %q does not name the file", err)
			}
			if n, _, found := strings.Cut(rest, ":"); found {
				if line, err := strconv.Atoi(n); err == nil && (line < 1 || line > strings.Count(doc, "\n")+1) {
					t.Fatalf("error names line %d of a %d-line input", line, strings.Count(doc, "\n")+1)
				}
			}
			return
		}
		if got == nil {
			t.Fatal("no error and no endpoints")
		}
	})
}

// BenchmarkParseConfig parses the configuration of a 512-node deployment
// in srt-slurm's layout: a DCGM endpoint with four GPUs and a backend
// endpoint per node.
func BenchmarkParseConfig(b *testing.B) {
	var doc strings.Builder
	doc.WriteString("storage = \"/lustre/run/logs/tachometer/raw/scrape\"\n")
	for n := range 512 {
		host := fmt.Sprintf("node-%04d", n)
		fmt.Fprintf(&doc, "\n[[endpoints]]\nname = \"dcgm_%s\"\nurl = \"http://%s:9400/metrics\"\nfrequency = 1.0\nfilter = \"dcgm\"\n", host, host)
		fmt.Fprintf(&doc, "[endpoints.node_metadata]\n\"hostname\" = %q\n\"job_id\" = \"1234\"\n[endpoints.gpu_metadata]\n", host)
		for g := range 4 {
			fmt.Fprintf(&doc, "\"%d\" = { \"worker_index\" = \"%d\", \"worker_process\" = \"0\", \"worker_role\" = \"decode\" }\n", g, n)
		}
		fmt.Fprintf(&doc, "\n[[endpoints]]\nname = \"backend_decode%d_rank0\"\nurl = \"http://%s:8081/metrics\"\nfrequency = 1.0\nfilter = \"backend\"\n", n, host)
		fmt.Fprintf(&doc, "[endpoints.node_metadata]\n\"hostname\" = %q\n\"worker_index\" = \"%d\"\n\"worker_role\" = \"decode\"\n", host, n)
	}
	text := doc.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		eps, err := ParseConfig("bench.toml", strings.NewReader(text))
		if err != nil || len(eps) != 1024 {
			b.Fatal(err, len(eps))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1024, "ns/endpoint")
}
