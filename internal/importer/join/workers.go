package join

import (
	"fmt"
	"slices"

	"github.com/dsight/dsight/internal/model"
)

// Bases of bindings and worker assignments.
const (
	BasisWorkerLog    = "request, host, role and process recorded in worker log"
	BasisEngineMap    = "explicit engine request ID map in worker log"
	BasisSpanBinding  = "recorded request and process binding"
	BasisHostRoleOnly = "unique recorded host and role; no request/process binding"
)

// attachWorkerLogs turns worker-log records into bindings and engine
// entries of bridged requests, in line order within each file. spanProcess
// is the process epoch request i's spans record for a host, role and
// server id (Stream.spanProcess).
func (j *joiner) attachWorkerLogs(spanProcess func(i int, host, role, serverID string) *string) {
	type idKey struct{ worker, host, process, client string }
	type owner struct {
		first string
		many  bool
	}
	owners := map[idKey]*owner{}
	var buf [36]byte
	for n := range j.in.WorkerLogs {
		wl := &j.in.WorkerLogs[n]
		j.logs = append(j.logs, wl.Name)
		if wl.Name.IsFrontend() || wl.Name.Worker == "" {
			continue
		}
		name, log := wl.Name, int32(len(j.logs)-1)
		bindings, maps := wl.bindings, wl.EngineMaps
		for len(bindings) > 0 || len(maps) > 0 {
			if len(maps) == 0 || (len(bindings) > 0 && bindings[0].line <= maps[0].Ref.Line) {
				b := &bindings[0]
				bindings = bindings[1:]
				id := wl.serverID(b, &buf)
				i, ok := j.byServer[string(id)]
				switch {
				case !ok:
					j.out.Audit["unjoined_worker_bindings"]++
					j.unjoined(model.LineRef{Path: wl.strs.strs[b.path], Line: b.line})
				case wl.strs.strs[b.host] != name.Host || wl.strs.strs[b.role] != name.Role || b.process == 0:
					j.out.Audit["mismatched_worker_bindings"]++
				default:
					r := &j.reqs[i]
					j.bind(r, bound{
						ref: model.LineRef{Path: wl.strs.strs[b.path], Line: b.line}, process: &wl.strs.strs[b.process],
						log: log, server: serverIndex(r, id),
					})
				}
				continue
			}
			m := maps[0]
			maps = maps[1:]
			i, ok := j.byServer[m.ServerID]
			if !ok {
				j.out.Audit["unjoined_engine_maps"]++
				j.unjoined(m.Ref)
				continue
			}
			r := &j.reqs[i]
			e := model.EngineEntry{
				Worker: name.Worker, Host: name.Host, Role: name.Role, ClientID: m.ClientID,
				DisaggID: m.DisaggID, ServerID: m.ServerID, Ref: m.Ref,
				Process: spanProcess(i, name.Host, name.Role, m.ServerID),
			}
			if m.ObservedAt != nil {
				e.ObservedAtNS = m.ObservedAt.UnixNS
			}
			r.Engine = append(r.Engine, e)
			j.bind(r, bound{ref: e.Ref, process: e.Process, log: log, server: serverIndex(r, []byte(e.ServerID)), engine: true})
			key := idKey{e.Worker, e.Host, deref(e.Process), e.ClientID}
			if o := owners[key]; o == nil {
				owners[key] = &owner{first: e.ServerID}
			} else if o.first != e.ServerID {
				o.many = true
			}
		}
	}
	for i := range j.reqs {
		r := &j.reqs[i]
		var prefill, decode bool
		for k := range r.Engine {
			e := &r.Engine[k]
			e.IdentityAmbiguous = e.Process == nil || owners[idKey{e.Worker, e.Host, *e.Process, e.ClientID}].many
			prefill = prefill || e.Role == model.RolePrefill
			decode = decode || e.Role == model.RoleDecode
		}
		j.count("engine_map_rows", int64(len(r.Engine)))
		if prefill && decode {
			j.out.Audit["clients_with_both_engine_maps"]++
		}
	}
	for _, o := range owners {
		if o.many {
			j.out.Audit["ambiguous_engine_ids"]++
		}
	}
}

// bound is a binding attached to a request, kept compact until the
// request is finished (expand): its worker, host and role are those of
// worker log joiner.logs[log], its server id is the request's
// bridges[server].
type bound struct {
	ref model.LineRef
	// process is the process epoch; nil for an Engine ID map whose
	// process the request's spans do not tell uniquely.
	process     *string
	log, server int32
	engine      bool // from an Engine ID map, else a worker-log binding
}

// serverIndex is the index of id in r's server ids, which hold it: the
// request was found by it (joiner.byServer).
func serverIndex(r *request, id []byte) int32 {
	for k, b := range r.bridges {
		if b.id == string(id) {
			return int32(k)
		}
	}
	panic("join: a request found by its server id does not hold it")
}

// unjoined notes the first worker-log record whose request id is not
// bridged.
func (j *joiner) unjoined(ref model.LineRef) {
	if j.out.FirstUnjoined == "" {
		j.out.FirstUnjoined = fmt.Sprintf("%s:%d", ref.Path, ref.Line)
	}
}

// bind records a binding once per request, worker, host and process.
func (j *joiner) bind(r *request, b bound) {
	for _, have := range r.bound {
		x, y := &j.logs[have.log], &j.logs[b.log]
		if have.server == b.server && x.Worker == y.Worker && x.Host == y.Host && equalPtr(have.process, b.process) {
			return
		}
	}
	r.bound = append(r.bound, b)
	j.out.Audit["worker_binding_rows"]++
}

// expand gives f the bindings attached to r, in the order they were
// attached.
func (j *joiner) expand(f *finishing, r *request) {
	if len(r.bound) == 0 {
		return
	}
	f.Bindings = make([]model.WorkerBinding, len(r.bound))
	for k := range r.bound {
		b, name := &r.bound[k], &j.logs[r.bound[k].log]
		wb := model.WorkerBinding{
			Worker: name.Worker, Host: name.Host, Role: name.Role, ServerID: r.bridges[b.server].id,
			Process: b.process, Ref: b.ref, Basis: BasisWorkerLog,
		}
		if b.engine {
			wb.Basis = BasisEngineMap
		} else {
			p := *b.process // the evidence's own copy, as the record's was
			wb.Process = &p
		}
		f.Bindings[k] = wb
	}
}

// knownWorkers are the workers registered for each host and role.
func (j *joiner) knownWorkers() map[hostRole][]string {
	known := map[hostRole][]string{}
	register := func(w Worker) {
		k := hostRole{w.Host, w.Role}
		if w.ID != "" && !slices.Contains(known[k], w.ID) {
			known[k] = append(known[k], w.ID)
		}
	}
	for _, wl := range j.in.WorkerLogs {
		if !wl.Name.IsFrontend() {
			register(Worker{ID: wl.Name.Worker, Host: wl.Name.Host, Role: wl.Name.Role})
		}
	}
	for _, w := range j.in.Workers {
		if w.Role != model.RoleFrontend {
			register(w)
		}
	}
	return known
}

// assignWorkers marks conflicting bindings of r and links each of its
// joined spans to the one worker its evidence names, if there is exactly
// one.
func (j *joiner) assignWorkers(r *finishing, known map[hostRole][]string) {
	for a := range r.Bindings {
		for b := range r.Bindings {
			x, y := &r.Bindings[a], &r.Bindings[b]
			if x.Worker != y.Worker && x.ServerID == y.ServerID && x.Host == y.Host &&
				x.Role == y.Role && equalPtr(x.Process, y.Process) {
				x.Ambiguous = true
			}
		}
		if r.Bindings[a].Ambiguous {
			j.out.Audit["ambiguous_worker_bindings"]++
		}
	}
	workers := map[string]bool{}
	for _, b := range r.Bindings {
		if !b.Ambiguous {
			workers[b.Worker] = true
		}
	}
	for k := range r.Spans {
		sp := &r.Spans[k]
		id := r.identity(k)
		candidates, basis := bindingCandidates(r, id), BasisSpanBinding
		if len(candidates) == 0 && id.hostRecorded && id.role != model.RoleFrontend {
			candidates, basis = known[hostRole{id.host, id.role}], BasisHostRoleOnly
		}
		switch len(candidates) {
		case 0:
		case 1:
			sp.Worker, sp.WorkerBasis = candidates[0], basis
			workers[sp.Worker] = true
		default:
			j.out.Audit["ambiguous_span_workers"]++
		}
	}
	for w := range workers {
		r.Workers = append(r.Workers, w)
	}
	slices.Sort(r.Workers)
}

// bindingCandidates lists the workers whose bindings match the span's
// recorded host, role and process (and request id, when it records one).
func bindingCandidates(r *finishing, id *identity) []string {
	if !id.hostRecorded || !id.processRecorded {
		return nil
	}
	var out []string
	for _, b := range r.Bindings {
		if b.Host == id.host && b.Role == id.role && b.Process != nil && *b.Process == id.process &&
			(id.request == "" || b.ServerID == id.request) && !slices.Contains(out, b.Worker) {
			out = append(out, b.Worker)
		}
	}
	return out
}

func equalPtr(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
