package lifecycle

import (
	"slices"

	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/otlp"
)

// Binding records that a worker process handled a Dynamo request.
type Binding struct {
	Worker   string
	Host     string
	Role     string
	ServerID string
	// Process is the process epoch; nil for an Engine ID map whose
	// process the request's spans do not tell uniquely.
	Process *string
	Ref     dynamolog.Ref
	Basis   string
	// Ambiguous: another worker claims the same request, host, role and
	// process (a duplicated log, say). It stays evidence, but never makes
	// a worker definite.
	Ambiguous bool
}

// EngineEntry is a TensorRT-LLM Engine ID map row joined to a request.
type EngineEntry struct {
	Worker   string
	Host     string
	Role     string
	ClientID string  // the engine's process-local client id
	DisaggID *string // nil when recorded as None
	ServerID string
	// Process is the unique epoch the request's spans record for this host
	// and role; nil when they record none or several.
	Process      *string
	Ref          dynamolog.Ref
	ObservedAtNS *int64
	// IdentityAmbiguous: the process is unknown, or the same worker
	// process maps this client id to several requests.
	IdentityAmbiguous bool
}

// Bases of bindings and worker assignments.
const (
	BasisWorkerLog    = "request, host, role and process recorded in worker log"
	BasisEngineMap    = "explicit engine request ID map in worker log"
	BasisSpanBinding  = "recorded request and process binding"
	BasisHostRoleOnly = "unique recorded host and role; no request/process binding"
)

// attachWorkerLogs turns worker-log records into bindings and engine
// entries of bridged requests, in line order within each file.
func (j *joiner) attachWorkerLogs() {
	type idKey struct{ worker, host, process, client string }
	owners := map[idKey]map[string]bool{}
	for _, wl := range j.in.WorkerLogs {
		if wl.Log == nil || wl.Name.IsFrontend() || wl.Name.Worker == "" {
			continue
		}
		name := wl.Name
		bindings, maps := wl.Log.Bindings, wl.Log.EngineMaps
		for len(bindings) > 0 || len(maps) > 0 {
			if len(maps) == 0 || (len(bindings) > 0 && bindings[0].Ref.Line <= maps[0].Ref.Line) {
				b := bindings[0]
				bindings = bindings[1:]
				i, ok := j.byServer[b.ServerID]
				switch {
				case !ok:
					j.out.Audit["unjoined_worker_bindings"]++
				case b.Host != name.Host || b.Role != name.Role || b.Process == "":
					j.out.Audit["mismatched_worker_bindings"]++
				default:
					process := b.Process
					j.bind(&j.out.Requests[i], Binding{
						Worker: name.Worker, Host: name.Host, Role: name.Role, ServerID: b.ServerID,
						Process: &process, Ref: b.Ref, Basis: BasisWorkerLog,
					})
				}
				continue
			}
			m := maps[0]
			maps = maps[1:]
			i, ok := j.byServer[m.ServerID]
			if !ok {
				j.out.Audit["unjoined_engine_maps"]++
				continue
			}
			r := &j.out.Requests[i]
			e := EngineEntry{
				Worker: name.Worker, Host: name.Host, Role: name.Role, ClientID: m.ClientID,
				DisaggID: m.DisaggID, ServerID: m.ServerID, Ref: m.Ref,
				Process: spanProcess(r, name.Host, name.Role, m.ServerID),
			}
			if m.ObservedAt != nil {
				e.ObservedAtNS = m.ObservedAt.UnixNS
			}
			r.Engine = append(r.Engine, e)
			j.bind(r, Binding{
				Worker: e.Worker, Host: e.Host, Role: e.Role, ServerID: e.ServerID,
				Process: e.Process, Ref: e.Ref, Basis: BasisEngineMap,
			})
			key := idKey{e.Worker, e.Host, deref(e.Process), e.ClientID}
			if owners[key] == nil {
				owners[key] = map[string]bool{}
			}
			owners[key][e.ServerID] = true
		}
	}
	for i := range j.out.Requests {
		r := &j.out.Requests[i]
		roles := map[string]bool{}
		for k := range r.Engine {
			e := &r.Engine[k]
			e.IdentityAmbiguous = e.Process == nil || len(owners[idKey{e.Worker, e.Host, *e.Process, e.ClientID}]) > 1
			roles[e.Role] = true
		}
		if len(r.Engine) > 0 {
			j.out.Audit["engine_map_rows"] += int64(len(r.Engine))
		}
		if roles["prefill"] && roles["decode"] {
			j.out.Audit["clients_with_both_engine_maps"]++
		}
	}
	for _, set := range owners {
		if len(set) > 1 {
			j.out.Audit["ambiguous_engine_ids"]++
		}
	}
}

// spanProcess is the unique process epoch that the request's spans record
// for a host and role, counting spans of this server id, or spans without
// an id when the request has only this one.
func spanProcess(r *Request, host, role, serverID string) *string {
	var found *string
	for k := range r.Spans {
		sp := r.Spans[k].Span
		spanHost, hostOK := recorded(sp, "dynamo.instance.id")
		process, processOK := recorded(sp, "dynamo.process.epoch")
		if !hostOK || !processOK || spanHost != host || sp.Role() != role {
			continue
		}
		if rid := requestID(sp); rid != serverID && (rid != "" || len(r.ServerIDs) != 1) {
			continue
		}
		if found != nil && *found != process {
			return nil
		}
		found = &process
	}
	return found
}

// bind records a binding once per request, worker, host and process.
func (j *joiner) bind(r *Request, b Binding) {
	for _, have := range r.Bindings {
		if have.ServerID == b.ServerID && have.Worker == b.Worker && have.Host == b.Host && equalPtr(have.Process, b.Process) {
			return
		}
	}
	r.Bindings = append(r.Bindings, b)
	j.out.Audit["worker_binding_rows"]++
}

// assignWorkers marks conflicting bindings and links each joined span to
// the one worker its evidence names, if there is exactly one.
func (j *joiner) assignWorkers() {
	type hostRole struct{ host, role string }
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
		if w.Role != "frontend" {
			register(w)
		}
	}
	for i := range j.out.Requests {
		r := &j.out.Requests[i]
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
			candidates, basis := bindingCandidates(r, sp.Span), BasisSpanBinding
			host, hostOK := recorded(sp.Span, "dynamo.instance.id")
			if len(candidates) == 0 && hostOK && sp.Role() != "frontend" {
				candidates, basis = known[hostRole{host, sp.Role()}], BasisHostRoleOnly
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
}

// bindingCandidates lists the workers whose bindings match the span's
// recorded host, role and process (and request id, when it records one).
func bindingCandidates(r *Request, sp *otlp.Span) []string {
	host, hostOK := recorded(sp, "dynamo.instance.id")
	process, processOK := recorded(sp, "dynamo.process.epoch")
	if !hostOK || !processOK {
		return nil
	}
	role, rid := sp.Role(), requestID(sp)
	var out []string
	for _, b := range r.Bindings {
		if b.Host == host && b.Role == role && b.Process != nil && *b.Process == process &&
			(rid == "" || b.ServerID == rid) && !slices.Contains(out, b.Worker) {
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
