package nsys

import (
	"strings"

	"github.com/dsight/dsight/internal/model"
)

// The NVTX categories the build imports, exactly as the guide lists them:
// the frontend's preprocess.*, route.* and transport.* ranges, TRT-LLM's
// executor and scheduling ranges, SGLang's scheduler.* stages, and
// TokenSpeed's forward/graph-replay, input preparation, sampling, cache and
// commit annotations. Anything else (operator ranges, other engines) stays
// in the export.

// Definition says what a selected NVTX name is.
type Definition struct {
	Category    string // model.NVTX*
	Description string
}

var prefixes = []struct {
	prefix string
	def    Definition
}{
	{"preprocess.", Definition{model.NVTXFrontend, "frontend request preprocessing"}},
	{"route.", Definition{model.NVTXFrontend, "frontend routing"}},
	{"transport.", Definition{model.NVTXFrontend, "frontend request transport"}},
	{"[Executor]", Definition{model.NVTXTRTLLM, "TRT-LLM executor"}},
	{"_schedule", Definition{model.NVTXTRTLLM, "TRT-LLM scheduling"}},
	{"_forward_step", Definition{model.NVTXTRTLLM, "TRT-LLM forward step"}},
	{"_prepare_inputs", Definition{model.NVTXTRTLLM, "TRT-LLM input preparation"}},
	{"_fetch_new_requests", Definition{model.NVTXTRTLLM, "TRT-LLM request fetch"}},
	{"prepare_resources", Definition{model.NVTXTRTLLM, "TRT-LLM resource preparation"}},
	{"LLM.generate_async", Definition{model.NVTXTRTLLM, "TRT-LLM request submission"}},
	{"RpcWorker.submit", Definition{model.NVTXTRTLLM, "TRT-LLM request submission"}},
	{"scheduler.", Definition{model.NVTXSGLang, "SGLang scheduler stage"}},
	{"forward_step ", Definition{model.NVTXTokenSpeed, "TokenSpeed forward step"}},
}

var exact = map[string]Definition{
	"graph_replay":                       {model.NVTXTokenSpeed, "TokenSpeed CUDA graph replay"},
	"target_forward":                     {model.NVTXTokenSpeed, "TokenSpeed forward"},
	"update_runtime_state":               {model.NVTXTokenSpeed, "TokenSpeed input preparation"},
	"sampling_prep":                      {model.NVTXTokenSpeed, "TokenSpeed sampling"},
	"pre_fill_setup":                     {model.NVTXTokenSpeed, "TokenSpeed input preparation"},
	"input_prep_fill":                    {model.NVTXTokenSpeed, "TokenSpeed input preparation"},
	"output_d2h":                         {model.NVTXTokenSpeed, "TokenSpeed output copy"},
	"loop:commit":                        {model.NVTXTokenSpeed, "TokenSpeed commit"},
	"commit:sync":                        {model.NVTXTokenSpeed, "TokenSpeed commit"},
	"reset_valid_cache_length":           {model.NVTXTokenSpeed, "TokenSpeed cache"},
	"reset_remote_prefill_cache_lengths": {model.NVTXTokenSpeed, "TokenSpeed cache"},
	"zero_cache_pages":                   {model.NVTXTokenSpeed, "TokenSpeed cache"},
}

// Classify returns the definition of an NVTX name, and false for a name in
// no category.
func Classify(name string) (Definition, bool) {
	if d, ok := exact[name]; ok {
		return d, true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.def, true
		}
	}
	return Definition{}, false
}

// IsFrontendRange reports whether a name is one of the frontend's own
// ranges, which identify the frontend process for CPU samples.
func IsFrontendRange(name string) bool {
	d, ok := Classify(name)
	return ok && d.Category == model.NVTXFrontend
}
