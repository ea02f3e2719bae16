package synth

import (
	"errors"
	"fmt"
	"strings"
)

// Sources is a set of source kinds to write.
type Sources uint16

// Source kinds. AIPerf and AgentPerf are alternative clients: a run has
// exactly one client export.
const (
	SourceAIPerf     Sources = 1 << iota // logs/artifacts/<benchmark>/profile_export.jsonl
	SourceAgentPerf                      // logs/agentperf/<benchmark>/requests.jsonl and companions
	SourceFrontend                       // logs/<host>_frontend_<i>.out
	SourceOTel                           // logs/otel/<collector>/traces.jsonl
	SourceWorkers                        // Dynamo worker binding lines in logs/<host>_<role>_w<i>.out
	SourceSGLang                         // SGLang batch and ReqTimeStats lines in the worker logs
	SourceTokenSpeed                     // TokenSpeed batch and scheduler-config lines in the worker logs
	SourceTachometer                     // logs/tachometer/local/<capture>/final.parquet + current.arrow
	SourceTRTLLM                         // TRT-LLM iteration records (print_iter_log) in the logs of workers that log no SGLang/TokenSpeed batches
	SourceNsight                         // logs/nsys/*.sqlite: Nsight Systems SQLite exports
)

// DefaultSources is what a run holds unless told otherwise: one client and
// every server source of an SGLang deployment.
const DefaultSources = SourceAIPerf | SourceFrontend | SourceOTel | SourceWorkers | SourceSGLang | SourceTachometer

var sourceNames = []struct {
	s    Sources
	name string
}{
	{SourceAIPerf, "aiperf"}, {SourceAgentPerf, "agentperf"}, {SourceFrontend, "frontend"},
	{SourceOTel, "otel"}, {SourceWorkers, "workers"}, {SourceSGLang, "sglang"},
	{SourceTokenSpeed, "tokenspeed"}, {SourceTachometer, "tachometer"}, {SourceTRTLLM, "trtllm"}, {SourceNsight, "nsight"},
}

// ParseSources reads a comma-separated list of source names, such as
// "aiperf,frontend,otel".
func ParseSources(list string) (Sources, error) {
	var out Sources
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		found := false
		for _, n := range sourceNames {
			if n.name == name {
				out |= n.s
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown source %q (known: %s)", name, AllSources().String())
		}
	}
	if out == 0 {
		return 0, errors.New("no sources selected")
	}
	if err := out.check(); err != nil {
		return 0, err
	}
	return out, nil
}

// AllSources is every source kind, both clients included.
func AllSources() Sources {
	var all Sources
	for _, n := range sourceNames {
		all |= n.s
	}
	return all
}

// Has reports whether every source in t is selected.
func (s Sources) Has(t Sources) bool { return s&t == t }

// String lists the selected sources by name, comma-separated.
func (s Sources) String() string {
	var names []string
	for _, n := range sourceNames {
		if s.Has(n.s) {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}

// Names lists the selected sources by name.
func (s Sources) Names() []string {
	if s == 0 {
		return nil
	}
	return strings.Split(s.String(), ",")
}

func (s Sources) check() error {
	if s&^AllSources() != 0 {
		return fmt.Errorf("unknown source bits %#x", uint16(s&^AllSources()))
	}
	if s.Has(SourceAIPerf | SourceAgentPerf) {
		return errors.New("sources aiperf and agentperf are alternative clients; a run has one client export")
	}
	return nil
}

// workerLogs reports whether worker log files are written at all.
func (s Sources) workerLogs() bool {
	return s&(SourceWorkers|SourceSGLang|SourceTokenSpeed|SourceTRTLLM) != 0
}
