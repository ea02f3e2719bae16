package query

import (
	"sort"
	"strings"

	"github.com/dsight/dsight/internal/catalog"
)

// Checks against the report, once the arguments are within their bounds:
// a worker, metric name or profile the report does not hold is not_found,
// and a rank filter over records that carry no rank is bad_args — so a
// question with a typo never comes back as a quiet empty answer. They run
// in Engine.do for every surface (the page, the CLI, any other caller).
//
// The request kinds (requests, sessions, timeline) refuse a worker no
// collection names; a worker the report knows that served no request still
// selects nothing, which is an answer.
var reportChecks = map[string][]func(e *Engine, op *Op, a Args) *Error{
	"requests":      {checkWorker},
	"sessions":      {checkWorker},
	"timeline":      {checkWorker},
	"iterations":    {checkWorker, checkIterationRank},
	"metrics":       {checkWorker, checkMetricName, checkMetricRank},
	"metric_series": {checkWorker, checkMetricName, checkMetricRank},
	"metric_plan":   {checkWorker, checkMetricName, checkMetricRank},
	"profiles":      {checkWorker, checkProfileRank},
	"nsys":          {checkWorker, checkProfileRank},
	"cpu":           {checkWorker, checkProfileRank},
}

func (e *Engine) checkReport(op *Op, a Args) *Error {
	for _, check := range reportChecks[op.Name] {
		if err := check(e, op, a); err != nil {
			return err
		}
	}
	return nil
}

// knownWorkers are every worker id any collection of the core names
// (requests served, iteration records and snapshots, metric series,
// profiles), without the evidence shard.
func (e *Engine) knownWorkers() map[string]bool {
	e.workerSetOnce.Do(func() {
		set := map[string]bool{}
		for _, list := range e.c.Server.Workers {
			for _, w := range catalog.IDs(list) {
				set[w] = true
			}
		}
		for _, w := range e.c.Batch.Worker {
			set[w] = true
		}
		for k := range e.c.Metrics {
			if w := e.c.Metrics[k].Worker; w != nil {
				set[*w] = true
			}
		}
		for k := range e.c.Profiles {
			set[e.c.Profiles[k].Worker] = true
		}
		delete(set, "")
		e.workerSet = set
	})
	return e.workerSet
}

func (e *Engine) unknownWorker(w string) *Error {
	known := sortedKeys(e.knownWorkers())
	list := "none"
	if len(known) > 0 {
		if len(known) > 12 {
			known = append(known[:12:12], "…")
		}
		list = strings.Join(known, ", ")
	}
	return notFound("no worker %q in this report (its workers: %s; \"workers\" lists them)", w, list)
}

func checkWorker(e *Engine, _ *Op, a Args) *Error {
	if a.Worker == nil || e.knownWorkers()[*a.Worker] {
		return nil
	}
	return e.unknownWorker(*a.Worker)
}

func checkMetricName(e *Engine, _ *Op, a Args) *Error {
	if a.Name == nil {
		return nil
	}
	for k := range e.c.MetricFamilies {
		if e.c.MetricFamilies[k].Name == *a.Name {
			return nil
		}
	}
	for k := range e.c.Metrics {
		if e.c.Metrics[k].Name == *a.Name {
			return nil
		}
	}
	var near []string
	for k := range e.c.MetricFamilies {
		if n := e.c.MetricFamilies[k].Name; strings.Contains(n, *a.Name) || strings.Contains(*a.Name, n) {
			near = append(near, n)
		}
	}
	sort.Strings(near)
	hint := "\"metric_families\" lists them"
	if len(near) > 0 {
		hint = "did you mean " + strings.Join(near[:min(5, len(near))], ", ") + "?"
	}
	return notFound("no metric family %q in this report (%s)", *a.Name, hint)
}

// rankless is the error for a rank filter over records that record none.
func rankless(op *Op, what, instead string, a Args) *Error {
	scope := ""
	if a.Worker != nil {
		scope = " of worker " + *a.Worker
	}
	name := op.Name
	if name == "metric_plan" {
		name = "metrics" // the plan is asked on a metrics question's behalf
	}
	return badArgs("%s cannot filter on rank: no %s%s records one; %s", name, what, scope, instead)
}

func checkIterationRank(e *Engine, op *Op, a Args) *Error {
	if a.Rank == nil {
		return nil
	}
	b := &e.c.Batch
	for i := 0; i < b.N; i++ {
		if (a.Worker == nil || b.Worker[i] == *a.Worker) && b.Rank.At(i) != nil {
			return nil
		}
	}
	return rankless(op, "iteration record or batch snapshot", "filter with --worker alone", a)
}

func checkMetricRank(e *Engine, op *Op, a Args) *Error {
	if a.Rank == nil {
		return nil
	}
	for k := range e.c.Metrics {
		m := &e.c.Metrics[k]
		if (a.Worker == nil || m.Worker != nil && *m.Worker == *a.Worker) && m.Rank != nil {
			return nil
		}
	}
	return rankless(op, "metric series", "filter with --worker, --gpu or --host", a)
}

func checkProfileRank(e *Engine, op *Op, a Args) *Error {
	if a.Rank == nil {
		return nil
	}
	for k := range e.c.Profiles {
		p := &e.c.Profiles[k]
		if (a.Worker == nil || p.Worker == *a.Worker) && p.Rank != nil {
			return nil
		}
	}
	return rankless(op, "Nsight profile", "select a capture with --profile (see \"profiles\")", a)
}
