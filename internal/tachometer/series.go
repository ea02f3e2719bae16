package tachometer

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Endpoint is the scraper configuration of one endpoint
// ([[endpoints]] in tachometer_config.toml), used when a row lacks the
// corresponding metadata column.
type Endpoint struct {
	Hostname string         // node_metadata.hostname
	GPUs     map[string]GPU // gpu_metadata, keyed by the gpu column's text
}

// GPU is the configured identity of one GPU of an endpoint.
type GPU struct {
	WorkerRole    string
	WorkerIndex   string
	WorkerProcess string
}

// Host provenance values of SeriesInfo.HostSource.
const (
	HostFromColumn = "raw label"
	HostFromConfig = "scraper configuration"
	HostUnknown    = "unknown"
)

// SeriesInfo is the identity of one series: a family plus everything that
// distinguishes its rows. Empty strings are values the capture did not
// record (null in the normalized contract).
type SeriesInfo struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`      // family name
	RawName   string `json:"raw_name"`  // metric_name of the first row, inline labels included
	Histogram bool   `json:"histogram"` // a bucket series; Labels holds metric.le
	Endpoint  string `json:"endpoint"`
	Host      string `json:"host"`
	RawHost   string `json:"raw_host"` // the hostname column, when present
	// HostSource says where Host came from: HostFromColumn, HostFromConfig
	// or HostUnknown.
	HostSource    string  `json:"host_source"`
	GPU           string  `json:"gpu"`
	Worker        string  `json:"worker"` // "<role>-<index>", "frontend" or empty
	Rank          string  `json:"rank"`
	RankKind      string  `json:"rank_kind"` // "global_rank", "rank" or empty
	WorkerProcess string  `json:"worker_process"`
	Labels        []Label `json:"labels"` // identity columns and metric.<k> inline labels, sorted by key
}

// parsedName is a metric_name after label parsing; cached per distinct name.
type parsedName struct {
	name     string
	labels   []Label
	bound    float64 // inline le
	hasBound bool
}

func parseCaptured(raw string) (*parsedName, error) {
	if raw == "" {
		return nil, fmt.Errorf("missing metric name")
	}
	name, labels, err := ParseMetricName(raw)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("missing metric name in %q", raw)
	}
	p := &parsedName{name: name, labels: labels}
	for _, l := range labels {
		if l.Key == "le" {
			b, err := parseBound(l.Value)
			if err != nil {
				return nil, fmt.Errorf("%w in %q", err, raw)
			}
			p.bound, p.hasBound = b, true
		}
	}
	return p, nil
}

// rowIdentity is what one row's identity columns say, before config
// fallbacks.
type rowIdentity struct {
	raw      string
	parsed   *parsedName
	columns  []Label // identity columns in schema order; ok=false ones omitted
	upper    float64
	hasUpper bool
	upper32  bool // the bound column is float32 (older captures)
}

// shape derives the family name, histogram flag and inline labels of a row,
// checking the two sources of a bucket bound against each other.
func (r *rowIdentity) shape() (family string, histogram bool, labels []Label, err error) {
	p := r.parsed
	if r.hasUpper && math.IsNaN(r.upper) {
		return "", false, nil, fmt.Errorf("invalid histogram_bucket_upper NaN in %q", r.raw)
	}
	if r.hasUpper && p.hasBound {
		inline := p.bound
		if r.upper32 {
			inline = float64(float32(inline)) // compare at the column's precision
		}
		if inline != r.upper {
			return "", false, nil, fmt.Errorf("conflicting histogram bounds in %q: le differs from histogram_bucket_upper %s",
				r.raw, FormatBound(r.upper))
		}
	}
	labels = append(labels, p.labels...)
	bound, hasBound := p.bound, p.hasBound
	if !hasBound && r.hasUpper {
		bound, hasBound = r.upper, true
	}
	if !hasBound {
		return p.name, false, labels, nil
	}
	le := FormatBound(bound)
	replaced := false
	for i := range labels {
		if labels[i].Key == "le" {
			labels[i].Value, replaced = le, true
		}
	}
	if !replaced {
		labels = append(labels, Label{Key: "le", Value: le})
	}
	return strings.TrimSuffix(p.name, "_bucket"), true, labels, nil
}

// describeSeries builds the identity of a row's series and the key that
// decides which rows share it: family, histogram flag, host, gpu and the
// sorted labels. Label order inside the raw name therefore never splits a
// series.
func describeSeries(r *rowIdentity, family string, histogram bool, inline []Label, endpoints map[string]Endpoint) (SeriesInfo, string) {
	col := func(name string) (string, bool) {
		for _, l := range r.columns {
			if l.Key == name {
				return l.Value, true
			}
		}
		return "", false
	}
	s := SeriesInfo{ID: -1, Name: family, RawName: r.raw, Histogram: histogram}
	s.Endpoint, _ = col(colEndpoint)
	cfg := endpoints[s.Endpoint]
	s.RawHost, _ = col(colHostname)
	switch {
	case s.RawHost != "":
		s.Host, s.HostSource = s.RawHost, HostFromColumn
	case cfg.Hostname != "":
		s.Host, s.HostSource = cfg.Hostname, HostFromConfig
	default:
		s.HostSource = HostUnknown
	}
	s.GPU, _ = col(colGPU)
	gpu := cfg.GPUs[s.GPU]
	role, _ := col(colWorkerRole)
	if role == "" {
		role = gpu.WorkerRole
	}
	role = canonicalRole(role)
	index, _ := col(colWorkerIndex)
	if index == "" {
		index = gpu.WorkerIndex
	}
	switch {
	case (role == "prefill" || role == "decode" || role == "agg") && index != "":
		s.Worker = role + "-" + index
	case strings.Contains(s.Endpoint, "frontend"):
		s.Worker = "frontend"
	}
	if s.WorkerProcess, _ = col(colProcess); s.WorkerProcess == "" {
		s.WorkerProcess = gpu.WorkerProcess
	}
	inlineValue := func(key string) string {
		for _, l := range inline {
			if l.Key == key {
				return l.Value
			}
		}
		return ""
	}
	globalCol, _ := col(colGlobalRank)
	rankCol, _ := col(colRank)
	for _, c := range []struct{ value, kind string }{
		{globalCol, "global_rank"}, {inlineValue("global_rank"), "global_rank"},
		{rankCol, "rank"}, {inlineValue("rank"), "rank"},
	} {
		if c.value != "" {
			s.Rank, s.RankKind = c.value, c.kind
			break
		}
	}

	byKey := map[string]string{}
	for _, l := range r.columns {
		if l.Value != "" {
			byKey[l.Key] = l.Value
		}
	}
	for _, l := range inline {
		byKey["metric."+l.Key] = l.Value
	}
	s.Labels = make([]Label, 0, len(byKey))
	for k, v := range byKey {
		s.Labels = append(s.Labels, Label{Key: k, Value: v})
	}
	sort.Slice(s.Labels, func(i, j int) bool { return s.Labels[i].Key < s.Labels[j].Key })

	var key []byte
	key = appendField(key, family)
	if histogram {
		key = append(key, 1)
	} else {
		key = append(key, 0)
	}
	key = appendField(key, s.Host)
	key = appendField(key, s.GPU)
	for _, l := range s.Labels {
		key = appendField(key, l.Key)
		key = appendField(key, l.Value)
	}
	return s, string(key)
}

// appendField appends a length-prefixed string, so that concatenated fields
// cannot collide whatever bytes they contain.
func appendField(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func canonicalRole(role string) string {
	role = strings.ToLower(role)
	if role == "aggregated" {
		return "agg"
	}
	return role
}
