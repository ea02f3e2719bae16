package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/dsight/dsight/internal/tachometer"
)

// TachometerConfigPath is the scraper configuration, relative to the run
// directory: srt-slurm leaves tachometer_config.toml in the log directory.
func TachometerConfigPath() string { return path.Join("logs", tachometer.ConfigName) }

// configEndpoint is one [[endpoints]] entry of the scraper configuration.
type configEndpoint struct {
	name, url, filter string
	node              map[string]string
	gpus              map[string]map[string]string
}

// writeConfig writes the configuration the scraper ran with, in the layout
// of srt-slurm's generator (sorted, quoted metadata keys). It is derived
// from the capture's own metadata columns, so it restates what every row
// already records and changes no series identity.
func (c *capture) writeConfig(w io.Writer) (int64, error) {
	var eps []*configEndpoint
	byName := map[string]*configEndpoint{}
	for _, s := range c.series {
		// Extra follows captureExtra: gpu, hostname, rank, worker_index,
		// worker_process, worker_role.
		gpu, host, index, process, role := s.Extra[0], s.Extra[1], s.Extra[3], s.Extra[4], s.Extra[5]
		ep := byName[s.Endpoint]
		if ep == nil {
			ep = &configEndpoint{name: s.Endpoint, node: map[string]string{"hostname": host}}
			switch {
			case strings.HasPrefix(s.Endpoint, "dcgm_"):
				ep.url, ep.filter = fmt.Sprintf("http://%s:9400/metrics", host), "dcgm"
			case s.Endpoint == "frontend":
				ep.url, ep.filter = fmt.Sprintf("http://%s:8000/metrics", host), "frontend"
				ep.node["frontend_index"] = "0"
			default:
				ep.url, ep.filter = fmt.Sprintf("http://%s:9090/metrics", host), "backend"
			}
			byName[s.Endpoint] = ep
			eps = append(eps, ep)
		}
		worker := map[string]string{"worker_index": index, "worker_process": process, "worker_role": role}
		switch {
		case role == "":
		case gpu != "":
			if ep.gpus == nil {
				ep.gpus = map[string]map[string]string{}
			}
			ep.gpus[gpu] = worker
		default:
			for k, v := range worker {
				ep.node[k] = v
			}
		}
	}
	bw := bufio.NewWriter(w)
	lines := int64(2)
	fmt.Fprintf(bw, "storage = %s\n\n", tomlString(path.Join("tachometer", "raw", "scrape")))
	for i, ep := range eps {
		if i > 0 {
			bw.WriteString("\n")
			lines++
		}
		fmt.Fprintf(bw, "[[endpoints]]\nname = %s\nurl = %s\nfrequency = 1.0\nfilter = %s\n",
			tomlString(ep.name), tomlString(ep.url), tomlString(ep.filter))
		lines += 5
		bw.WriteString("[endpoints.node_metadata]\n")
		lines++
		for _, k := range sortedKeys(ep.node) {
			fmt.Fprintf(bw, "%s = %s\n", tomlString(k), tomlString(ep.node[k]))
			lines++
		}
		if len(ep.gpus) == 0 {
			continue
		}
		bw.WriteString("[endpoints.gpu_metadata]\n")
		lines++
		for _, g := range sortedKeys(ep.gpus) {
			var fields []string
			for _, k := range sortedKeys(ep.gpus[g]) {
				fields = append(fields, tomlString(k)+" = "+tomlString(ep.gpus[g][k]))
			}
			fmt.Fprintf(bw, "%s = { %s }\n", tomlString(g), strings.Join(fields, ", "))
			lines++
		}
	}
	return lines, bw.Flush()
}

// tomlString quotes s as srt-slurm does (json.dumps): every JSON string
// escape is also a TOML basic-string escape.
func tomlString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
