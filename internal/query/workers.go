package query

import (
	"sort"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/model"
)

// WorkerItem is one server worker as the report's evidence names it:
// gathered from the request bindings, the worker logs' iteration records
// and batch snapshots, the metric series and the Nsight profiles, so that
// a worker's hosts, process epochs and log files are one question instead
// of one "request" call per request. Every list is sorted; Host is the one
// host observed, or null when none or several were (Hosts lists them).
type WorkerItem struct {
	ID      string   `json:"id"`
	Role    *string  `json:"role"`
	Engine  *string  `json:"engine"`
	Engines []string `json:"engines"`
	Host    *string  `json:"host"`
	Hosts   []string `json:"hosts"`
	// Processes are the process epochs recorded for the worker (Dynamo
	// bindings, metric series labels).
	Processes []string `json:"processes"`
	// LogFiles are the worker logs its bindings, iteration records and
	// batch snapshots were read from (its Nsight exports are "profiles").
	LogFiles   []WorkerFile `json:"log_files"`
	RankScopes []RankScope  `json:"rank_scopes"`
	// RequestsServed counts the requests the worker definitely served.
	RequestsServed int `json:"requests_served"`
	// Evidence counts, per kind, the records that name the worker.
	Evidence WorkerEvidence `json:"evidence"`
}

// WorkerFile is one source file, by report source id and path.
type WorkerFile struct {
	Source *int   `json:"source"`
	Path   string `json:"path"`
}

// RankScope is the ranks one kind of record gives the worker, in the
// rank_kind it recorded (null when it recorded none).
type RankScope struct {
	From     string  `json:"from"`
	RankKind *string `json:"rank_kind"`
	Ranks    []int64 `json:"ranks"`
}

// WorkerEvidence counts the records naming a worker, by kind.
type WorkerEvidence struct {
	Bindings     int `json:"bindings"`
	Iterations   int `json:"iterations"`
	Snapshots    int `json:"snapshots"`
	MetricSeries int `json:"metric_series"`
	Profiles     int `json:"profiles"`
}

// workerAcc gathers one worker while the collections are walked.
type workerAcc struct {
	item                      WorkerItem
	roles, engines, hosts     map[string]bool
	processes, files          map[string]bool
	ranks                     map[[2]string]map[int64]bool // (from, rank_kind or "") → ranks
	served                    int
	iterations, snapshots, ms int
}

func (e *Engine) workerItems() ([]WorkerItem, error) {
	e.workersMu.Lock()
	defer e.workersMu.Unlock()
	if e.workerList != nil {
		return e.workerList, nil
	}
	accs := map[string]*workerAcc{}
	get := func(id string) *workerAcc {
		a := accs[id]
		if a == nil {
			a = &workerAcc{item: WorkerItem{ID: id}, roles: map[string]bool{}, engines: map[string]bool{}, hosts: map[string]bool{},
				processes: map[string]bool{}, files: map[string]bool{}, ranks: map[[2]string]map[int64]bool{}}
			accs[id] = a
		}
		return a
	}
	addRank := func(a *workerAcc, from string, kind *string, rank *int64) {
		if rank == nil {
			return
		}
		key := [2]string{from, ""}
		if kind != nil {
			key[1] = *kind
		}
		if a.ranks[key] == nil {
			a.ranks[key] = map[int64]bool{}
		}
		a.ranks[key][*rank] = true
	}
	for _, list := range e.c.Server.Workers {
		if list == "" {
			continue
		}
		for w := range strings.SplitSeq(list, "\n") { // in place, as workers() walks them
			get(w).served++
		}
	}
	// Bindings hold the hosts and process epochs.
	if err := e.gatherBindings(get); err != nil {
		return nil, err
	}
	bt := &e.c.Batch
	for i := 0; i < bt.N; i++ {
		if bt.Worker[i] == "" {
			continue
		}
		a := get(bt.Worker[i])
		if bt.Kind[i] == model.BatchTokenSpeedSnapshot {
			a.snapshots++
		} else {
			a.iterations++
		}
		if bt.Host[i] != "" {
			a.hosts[bt.Host[i]] = true
		}
		if bt.Role[i] != "" {
			a.roles[bt.Role[i]] = true
		}
		if f := bt.Format[i]; f != "" {
			a.engines[engineOfFormat(f)] = true
		}
		if bt.EvidencePath[i] != "" {
			a.files[bt.EvidencePath[i]] = true
		}
		kind := bt.RankKind[i]
		addRank(a, "iterations", optString(kind), bt.Rank.At(i))
	}
	for k := range e.c.Metrics {
		m := &e.c.Metrics[k]
		if m.Worker == nil || *m.Worker == "" {
			continue
		}
		a := get(*m.Worker)
		a.ms++
		if m.Host != nil && *m.Host != "" {
			a.hosts[*m.Host] = true
		}
		if m.WorkerProcess != nil && *m.WorkerProcess != "" {
			a.processes[*m.WorkerProcess] = true
		}
		if m.Generator != "" {
			a.engines[engineOfFormat(strings.TrimPrefix(m.Generator, "dynamo-"))] = true
		}
		if m.Rank != nil {
			if n, err := strconv.ParseInt(*m.Rank, 10, 64); err == nil {
				addRank(a, "metrics", m.RankKind, &n)
			}
		}
	}
	for k := range e.c.Profiles {
		p := &e.c.Profiles[k]
		if !p.Mapped || p.Worker == "" {
			continue
		}
		a := get(p.Worker)
		a.item.Evidence.Profiles++
		if p.Role != nil {
			a.roles[*p.Role] = true
		}
		if p.Host != nil && *p.Host != "" {
			a.hosts[*p.Host] = true
		}
		if p.Rank != nil {
			r := int64(*p.Rank)
			kind := "nsight_distributed_rank"
			addRank(a, "profiles", &kind, &r)
		}
	}
	src := map[string]int{}
	for _, s := range e.c.Sources {
		src[s.Path] = s.ID
	}
	out := make([]WorkerItem, 0, len(accs))
	for _, a := range accs {
		it := a.item
		it.RequestsServed = a.served
		it.Evidence.Iterations, it.Evidence.Snapshots, it.Evidence.MetricSeries = a.iterations, a.snapshots, a.ms
		roles := sortedKeys(a.roles)
		if len(roles) == 1 {
			it.Role = &roles[0]
		} else if len(roles) == 0 {
			if i := strings.LastIndexByte(it.ID, '-'); i > 0 {
				r := it.ID[:i]
				it.Role = &r
			}
		}
		it.Engines = sortedKeys(a.engines)
		if len(it.Engines) == 1 {
			it.Engine = &it.Engines[0]
		}
		it.Hosts = sortedKeys(a.hosts)
		if len(it.Hosts) == 1 {
			it.Host = &it.Hosts[0]
		}
		it.Processes = sortedKeys(a.processes)
		it.LogFiles = []WorkerFile{}
		for _, p := range sortedKeys(a.files) {
			f := WorkerFile{Path: p}
			if id, ok := src[p]; ok {
				f.Source = &id
			}
			it.LogFiles = append(it.LogFiles, f)
		}
		it.RankScopes = []RankScope{}
		keys := make([][2]string, 0, len(a.ranks))
		for key := range a.ranks {
			keys = append(keys, key)
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
		})
		for _, key := range keys {
			s := RankScope{From: key[0], Ranks: []int64{}}
			if key[1] != "" {
				kind := key[1]
				s.RankKind = &kind
			}
			for r := range a.ranks[key] {
				s.Ranks = append(s.Ranks, r)
			}
			sort.Slice(s.Ranks, func(i, j int) bool { return s.Ranks[i] < s.Ranks[j] })
			it.RankScopes = append(it.RankScopes, s)
		}
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	e.workerList = out
	return out, nil
}

// engineOfFormat names the engine of a batch record format or a log
// metric generator ("trtllm-v4" is TRT-LLM's, "dynamo-tokenspeed"
// TokenSpeed's once the caller drops the "dynamo-").
func engineOfFormat(f string) string {
	if i := strings.IndexByte(f, '-'); i > 0 {
		return f[:i]
	}
	return f
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// listWorkers answers the "workers" kind: one page of workers, filtered by
// id and role.
func (e *Engine) listWorkers(a Args) (list[WorkerItem], error) {
	items, err := e.workerItems()
	if err != nil {
		return list[WorkerItem]{}, err
	}
	var kept []WorkerItem
	for _, it := range items {
		if a.Worker != nil && it.ID != *a.Worker {
			continue
		}
		if a.Role != nil && (it.Role == nil || *it.Role != *a.Role) {
			continue
		}
		kept = append(kept, it)
	}
	if a.Worker != nil && len(kept) == 0 {
		return list[WorkerItem]{}, e.unknownWorker(*a.Worker)
	}
	offset, limit := page(a)
	out := list[WorkerItem]{Total: len(kept), Offset: offset, Limit: limit, Range: [2]float64{0, e.durationS}, Items: []WorkerItem{}}
	for k := offset; k < len(kept) && len(out.Items) < limit; k++ {
		out.Items = append(out.Items, kept[k])
	}
	return out, nil
}
