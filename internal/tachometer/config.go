package tachometer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/dsight/dsight/internal/lineread"
)

// ConfigName is the scraper configuration's file name in a run's log
// directory.
const ConfigName = "tachometer_config.toml"

// maxConfigBytes bounds the configuration read into memory. A scraper
// configuration lists a few endpoints per node, so even a large cluster's
// stays far below it.
const maxConfigBytes = 32 << 20

// GPU metadata keys. The scraper writes worker_role and worker_index;
// srt-slurm's test configuration spells the same facts endpoint and
// endpoint_index.
const (
	keyWorkerRole    = "worker_role"
	keyWorkerIndex   = "worker_index"
	keyWorkerProcess = "worker_process"
	keyRoleAlias     = "endpoint"
	keyIndexAlias    = "endpoint_index"
)

// ReadConfig reads a Tachometer scraper configuration
// (tachometer_config.toml): the node and GPU metadata of every
// [[endpoints]] entry, by endpoint name. An error opening the file is
// returned as is, so errors.Is(err, fs.ErrNotExist) tells a missing file.
func ReadConfig(path string) (map[string]Endpoint, error) {
	f, err := lineread.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseConfig(path, f)
}

// ParseConfig parses a scraper configuration read from r; name is the path
// its errors start with. Errors name the line (`name:LINE: message`).
//
// Only the keys that identify a row's series are read: name,
// node_metadata.hostname and gpu_metadata (worker_role or endpoint,
// worker_index or endpoint_index, worker_process). Other keys (url,
// frequency, filter, storage and any metadata the scraper copies into
// columns) may hold anything; a key that is read must be a string. An
// empty string stays empty, which describeSeries treats as not recorded.
func ParseConfig(name string, r io.Reader) (_ map[string]Endpoint, err error) {
	data, err := io.ReadAll(io.LimitReader(r, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("%s: configuration larger than %d bytes", name, maxConfigBytes)
	}
	defer func() {
		// The decoder reports a bug of its own by panicking; that is still a
		// file this run cannot use, not a reason to stop the process.
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: toml decoder failed: %v", name, p)
		}
	}()
	var doc map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: invalid TOML: %s", name, syntaxErrorLine(data, pe.Position), pe.Message)
		}
		return nil, fmt.Errorf("%s: invalid TOML: %w", name, err)
	}
	d := &configDecoder{name: name, data: data}
	return d.endpoints(doc)
}

// syntaxErrorLine is the line holding the byte a syntax error points at.
// The decoder's own line number is the lexer's, which has already moved to
// the next line when the offending byte is a line end (an unclosed header).
func syntaxErrorLine(data []byte, pos toml.Position) int {
	// Offsets count from after a byte-order mark, which the decoder skips.
	for _, bom := range []string{"\xef\xbb\xbf", "\xff\xfe", "\xfe\xff"} {
		if bytes.HasPrefix(data, []byte(bom)) {
			data = data[len(bom):]
			break
		}
	}
	if pos.Start < 0 || pos.Start > len(data) {
		return pos.Line
	}
	return bytes.Count(data[:pos.Start], []byte{'\n'}) + 1
}

// configDecoder turns a decoded document into endpoints, naming the line of
// whatever it rejects.
type configDecoder struct {
	name  string
	data  []byte
	lines keyLines // scanned from data on the first error
}

// lineOf returns the line defining path, or 0 when unknown.
func (d *configDecoder) lineOf(path []string) int {
	if d.lines == nil {
		d.lines = scanKeyLines(d.data)
	}
	return d.lines.of(path)
}

func (d *configDecoder) errorf(path []string, format string, args ...any) error {
	if line := d.lineOf(path); line > 0 {
		return fmt.Errorf("%s:%d: "+format, append([]any{d.name, line}, args...)...)
	}
	return fmt.Errorf("%s: "+format, append([]any{d.name}, args...)...)
}

func (d *configDecoder) endpoints(doc map[string]any) (map[string]Endpoint, error) {
	out := map[string]Endpoint{}
	raw, ok := doc["endpoints"]
	if !ok {
		return out, nil
	}
	var elems []any
	switch v := raw.(type) {
	case []map[string]any: // [[endpoints]] tables
		for _, e := range v {
			elems = append(elems, e)
		}
	case []any: // endpoints = [{...}, ...]
		elems = v
	default:
		return nil, d.errorf([]string{"endpoints"}, "endpoints is %s, want an array of tables", tomlType(raw))
	}
	firstLine := map[string][]string{} // endpoint name → path of its name key
	for i, e := range elems {
		at := []string{"endpoints", elementKey(i)}
		table, ok := e.(map[string]any)
		if !ok {
			return nil, d.errorf(at, "endpoint %d is %s, want a table", i+1, tomlType(e))
		}
		name, ok, err := d.str(table, at, "name")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, d.errorf(at, "endpoint %d has no name", i+1)
		}
		namePath := append(at[:len(at):len(at)], "name")
		if prev, dup := firstLine[name]; dup {
			return nil, d.errorf(namePath, "duplicate endpoint name %q (first at line %d)", name, d.lineOf(prev))
		}
		firstLine[name] = namePath
		ep, err := d.endpoint(table, at)
		if err != nil {
			return nil, err
		}
		out[name] = ep
	}
	return out, nil
}

func (d *configDecoder) endpoint(table map[string]any, at []string) (Endpoint, error) {
	var ep Endpoint
	node, err := d.table(table, at, "node_metadata")
	if err != nil {
		return ep, err
	}
	if node != nil {
		if ep.Hostname, _, err = d.str(node, append(at[:len(at):len(at)], "node_metadata"), "hostname"); err != nil {
			return ep, err
		}
	}
	gpus, err := d.table(table, at, "gpu_metadata")
	if err != nil || gpus == nil {
		return ep, err
	}
	gpuAt := append(at[:len(at):len(at)], "gpu_metadata")
	ep.GPUs = make(map[string]GPU, len(gpus))
	for _, key := range sortedKeys(gpus) { // sorted, so the first bad entry is always the same one
		meta, err := d.table(gpus, gpuAt, key)
		if err != nil {
			return ep, err
		}
		if ep.GPUs[key], err = d.gpu(meta, append(gpuAt[:len(gpuAt):len(gpuAt)], key)); err != nil {
			return ep, err
		}
	}
	return ep, nil
}

func (d *configDecoder) gpu(meta map[string]any, at []string) (GPU, error) {
	var g GPU
	var err error
	if g.WorkerRole, err = d.either(meta, at, keyWorkerRole, keyRoleAlias); err != nil {
		return g, err
	}
	if g.WorkerIndex, err = d.either(meta, at, keyWorkerIndex, keyIndexAlias); err != nil {
		return g, err
	}
	g.WorkerProcess, _, err = d.str(meta, at, keyWorkerProcess)
	return g, err
}

// either reads a fact that has two spellings; when both are present they
// must agree, since picking one would hide the other's evidence.
func (d *configDecoder) either(meta map[string]any, at []string, key, alias string) (string, error) {
	v, ok, err := d.str(meta, at, key)
	if err != nil {
		return "", err
	}
	w, aliased, err := d.str(meta, at, alias)
	if err != nil {
		return "", err
	}
	switch {
	case ok && aliased && v != w:
		return "", d.errorf(append(at[:len(at):len(at)], alias), "%s %q disagrees with %s %q", alias, w, key, v)
	case ok:
		return v, nil
	}
	return w, nil
}

// str reads an optional string key of table, which sits at path at.
func (d *configDecoder) str(table map[string]any, at []string, key string) (string, bool, error) {
	v, ok := table[key]
	if !ok {
		return "", false, nil
	}
	s, isString := v.(string)
	if !isString {
		return "", false, d.errorf(append(at[:len(at):len(at)], key), "%s is %s, want a string", dotted(at, key), tomlType(v))
	}
	return s, true, nil
}

// table reads an optional table key of table; nil when absent.
func (d *configDecoder) table(table map[string]any, at []string, key string) (map[string]any, error) {
	v, ok := table[key]
	if !ok {
		return nil, nil
	}
	t, isTable := v.(map[string]any)
	if !isTable {
		return nil, d.errorf(append(at[:len(at):len(at)], key), "%s is %s, want a table", dotted(at, key), tomlType(v))
	}
	return t, nil
}

// dotted names a key for a message: endpoints[2].gpu_metadata."0".
func dotted(at []string, key string) string {
	var b strings.Builder
	for _, k := range append(at[:len(at):len(at)], key) {
		if i, ok := elementIndex(k); ok {
			fmt.Fprintf(&b, "[%d]", i+1)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if isBareKey(k) {
			b.WriteString(k)
		} else {
			fmt.Fprintf(&b, "%q", k)
		}
	}
	return b.String()
}

func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []map[string]any, []any:
		return "an array"
	}
	return "a date or time"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
