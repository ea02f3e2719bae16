package synth

import (
	"fmt"
	"math"
	"time"
)

// Defaults that shape a run when Config leaves them zero.
const (
	// RequestsPerScale is the request count of a -scale 1 run.
	RequestsPerScale = 200
	// MaxConcurrency caps the number of overlapping sessions; past it a
	// larger request count makes the run longer rather than denser.
	MaxConcurrency = 64
	// requestsPerSlot sizes auto concurrency so that small runs still last
	// about ten minutes: each session slot issues roughly this many requests.
	requestsPerSlot = 64
	// BaseEpochNS is the fixed start of every run before the seed's offset
	// (2026-09-17T10:58:31Z, the epoch of the reference synthetic fixtures).
	BaseEpochNS int64 = 1789642711000000000
)

// Config selects one synthetic run. The zero value is not usable; call
// Resolve (WriteRun and NewPlan do) to fill defaults.
type Config struct {
	Seed uint64
	// Scale multiplies RequestsPerScale when Requests is zero.
	Scale float64
	// Requests is the total number of client rows, warmup included.
	Requests int
	// Concurrency is the number of session slots running in parallel once
	// the ramp is over; zero derives it from Requests.
	Concurrency int
	// Hostile plants markup and quote characters in one session id, one
	// request id, one conversation id and the model label of the
	// frontend's Tachometer gauges, to exercise escaping downstream.
	Hostile bool
	// Benchmark names the artifact directory; empty derives a name from
	// the concurrency, the way AIPerf names its artifact directories.
	Benchmark string

	// Sources selects the files to write; zero means DefaultSources.
	Sources Sources
	// Timezone is the IANA zone of the workers' naive local log timestamps
	// (SGLang, TokenSpeed); empty means UTC.
	Timezone string
	// OTelUntraced is the fraction of requests that export no spans.
	OTelUntraced float64
	// OTelDuplicate writes a second collector export holding an identical
	// copy of every span.
	OTelDuplicate bool
	// ClockOddities plants three requests whose server evidence a reader
	// must flag (see Oddity): worker spans with clock skew, milestones out of
	// causal order, and a client request served twice under two Dynamo
	// request ids.
	ClockOddities bool
	// Samples is the least number of rows final.parquet must hold. The
	// capture scrapes every family of every endpoint once a second over the
	// run; to reach Samples it also scrapes the DCGM exporters of idle nodes
	// of the allocation. Zero keeps the deployment's own endpoints.
	Samples int64
	// NsightRanges is the NVTX range count of each worker's Nsight export;
	// zero records one scheduler iteration every 20 ms of the run.
	NsightRanges int64
	// NsightIrregular writes worker exports shaped like real ones
	// (nsight_irregular.go) instead of regular back-to-back iterations.
	NsightIrregular bool
}

// Resolve returns c with defaults filled in, or an error for values no run
// can satisfy.
func (c Config) Resolve() (Config, error) {
	if c.Requests < 0 {
		return c, fmt.Errorf("requests must be >= 0, got %d", c.Requests)
	}
	if c.Concurrency < 0 {
		return c, fmt.Errorf("concurrency must be >= 0, got %d", c.Concurrency)
	}
	if c.Requests == 0 {
		scale := c.Scale
		if scale == 0 {
			scale = 1
		}
		if scale < 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
			return c, fmt.Errorf("scale must be a positive number, got %v", c.Scale)
		}
		n := math.Round(scale * RequestsPerScale)
		if n > 1e9 {
			return c, fmt.Errorf("scale %v asks for more than 1e9 requests", scale)
		}
		c.Requests = max(1, int(n))
	}
	if c.Concurrency == 0 {
		c.Concurrency = min(MaxConcurrency, max(2, c.Requests/requestsPerSlot))
	}
	if c.Benchmark == "" {
		c.Benchmark = fmt.Sprintf("synth_agentic-70b-openai-chat-concurrency%d", c.Concurrency)
	}
	if c.Sources == 0 {
		c.Sources = DefaultSources
	}
	if err := c.Sources.check(); err != nil {
		return c, err
	}
	if c.Timezone == "" {
		c.Timezone = "UTC"
	}
	if _, err := time.LoadLocation(c.Timezone); err != nil {
		return c, fmt.Errorf("timezone: %w", err)
	}
	if !(c.OTelUntraced >= 0 && c.OTelUntraced <= 1) {
		return c, fmt.Errorf("otel-untraced must be a fraction in [0, 1], got %v", c.OTelUntraced)
	}
	if c.Samples < 0 {
		return c, fmt.Errorf("samples must be >= 0, got %d", c.Samples)
	}
	return c, nil
}

// warmupCount is how many single-turn warmup requests precede profiling.
func warmupCount(requests int) int {
	if requests < 8 {
		return 0
	}
	return min(16, max(2, requests/50))
}
