package importer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dsight/dsight/internal/metrics"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/otlp"
	"github.com/dsight/dsight/internal/sourcename"
)

// sourceKind is one kind of source file a run holds: where discovery finds
// its files and which reader reads them. sourceKinds is the only place that
// says which files a build reads; a new source family is one more entry.
type sourceKind struct {
	// name says what the kind is in the build's progress lines.
	name string
	// discover picks the kind's files out of the run's inventory (absolute
	// paths, in read order). The flags that select sources (--client,
	// --no-otel, --metrics) act here and nowhere else.
	discover func(b *build) ([]string, error)
	// read reads every file of the kind once, registering each as a source
	// (ids follow the table, then the files' order).
	read func(b *build, files []string) error
	// framed kinds are read once the run window is known, because they keep
	// only what falls inside it; the others are read before, and the window
	// comes from them when the run has no client export.
	framed bool
	// otel marks the OTel exports, whose decode starts with the import
	// and runs beside the kinds read before them (startOTel).
	otel bool
}

// sourceKinds in read order, which is also the order of the manifest's
// sources. Files no kind registers are reported as unread.
var sourceKinds = []sourceKind{
	{
		name: "client exports",
		// Client export: an AIPerf/AgentX profile export or a native
		// AgentPerf request log (with its phase manifest and analyses), by
		// clientGlobs, or the one --client names; more than one is an error.
		discover: discoverClients,
		read:     readClients,
	},
	{
		name: "frontend logs",
		// Frontend log: <host>_frontend_<i>.out, by the shared filename
		// grammar (sourcename).
		discover: func(b *build) ([]string, error) { return b.namedLogs(true), nil },
		read:     readFrontends,
	},
	{
		name: "worker logs",
		// Worker log: <host>_<role>_w<i>….out, by the shared filename
		// grammar. One pass over each log serves the server-evidence scan
		// and the log-metric generators (metrics.Generators: SGLang,
		// TokenSpeed).
		discover: func(b *build) ([]string, error) { return b.namedLogs(false), nil },
		read:     readWorkers,
	},
	{
		name: "OTel exports",
		// OTel export: otel/traces.jsonl and otel/*/traces.jsonl
		// (otlp.Discover); none with --no-otel.
		discover: func(b *build) ([]string, error) {
			if b.opt.NoOTel {
				return nil, nil
			}
			rel, err := otlp.Discover(b.inv)
			files := make([]string, len(rel))
			for i, r := range rel {
				files[i] = b.inv.abs(r)
			}
			return files, err
		},
		read: readOTel,
		otel: true,
	},
	{
		name: "Nsight exports",
		// Nsight Systems export: every *.sqlite in the run and each
		// --nsys-sqlite path (a file, or a directory searched recursively).
		// Its capture window frames a run without a client export.
		discover: discoverNsight,
		read:     readNsight,
	},
	{
		name: "Tachometer metrics",
		// Tachometer capture: the capture leaf below tachometer/local or
		// the --metrics path (metrics.Sources.FindCapture), with the log
		// directory's tachometer_config.toml when there is a capture. Read
		// once the window is known, with the log metrics of the worker logs.
		discover: discoverCapture,
		read:     readMetrics,
		framed:   true,
	},
}

// build is one import in progress: the run's inventory, what each kind
// discovered and what the readers produced for the steps after them.
type build struct {
	opt          Options
	root, logDir string
	inv          *inventory
	open         func(path string) (file, error)
	d            *model.Dataset
	res          *Result
	registered   map[string]int // absolute path → source id
	held         map[string]*held

	clients  []string        // the client exports read
	requests []model.Request // client requests, absolute times
	server   serverEvidence  // the server evidence for the join
	// otelEarly is the OTel exports' decode, started with the import so
	// that it runs beside the sources read before it (startOTel).
	otelEarly *otelDecode
	metrics   metrics.Sources // the capture found and the log metrics read, for the window and the metrics
	// profileWindow is the union of the Nsight capture windows read.
	profileWindow window
	origin        int64 // the run window, absolute ns, once known
	last          int64
}

// namedLogs are the worker logs (or frontend logs) of the run: .out files whose
// name the shared grammar parses, sorted.
func (b *build) namedLogs(frontend bool) []string {
	return b.inv.regular(func(rel string, e fs.DirEntry) bool {
		if !strings.HasSuffix(e.Name(), ".out") {
			return false
		}
		id, ok := sourcename.Parse(e.Name())
		return ok && id.IsFrontend() == frontend
	})
}

// clientGlobs are the client export locations, relative to the log
// directory: AIPerf/AgentX profile exports and native AgentPerf request logs.
var clientGlobs = []string{
	"profile_export.jsonl",
	"agentic/*/profile_export.jsonl",
	"agentic/*/aiperf_artifacts/profile_export.jsonl",
	"artifacts/*/profile_export.jsonl",
	"requests.jsonl",
	"agentperf/requests.jsonl",
	"agentperf/*/requests.jsonl",
}

// discoverClients finds the client export: the file --client names, or
// the one match of clientGlobs.
func discoverClients(b *build) ([]string, error) {
	if explicit := b.opt.Client; explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("--client: %w", err)
		}
		if st.IsDir() {
			return nil, fmt.Errorf("--client %s is a directory; name the profile_export.jsonl file", explicit)
		}
		return []string{abs}, nil
	}
	found, err := b.inv.glob(clientGlobs...)
	if err != nil {
		return nil, err
	}
	if len(found) > 1 {
		return nil, fmt.Errorf("found %d client exports; select one with --client:\n  %s", len(found), strings.Join(found, "\n  "))
	}
	return found, nil
}

// discoverCapture finds the Tachometer capture by the metrics' rules, in
// the inventory or at the --metrics path (which may lie outside the run).
// Its files are opened through the build, once.
func discoverCapture(b *build) ([]string, error) {
	all := b.inv.regular(func(string, fs.DirEntry) bool { return true })
	return b.metrics.FindCapture(b.logDir, all, b.opt.Metrics, func(path string) (metrics.File, error) { return b.openHeld(path) })
}
