package catalog

import (
	"cmp"
	"slices"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// TableWorkerBindings indexes the worker bindings of the request evidence:
// one row per distinct (worker, host, role, process, log file) a binding
// names, with how many bindings name it. The "workers" answer reads its
// hosts, process epochs and log files here instead of inflating every
// evidence chunk (~400 ms of CPU at 2,000 traced requests); the bindings
// themselves stay in the evidence shard, with their lines. Cores of runs
// without server evidence have none.
const TableWorkerBindings = "worker_bindings"

// WorkerBindings is the worker_bindings table as columns; Present says
// whether the core holds it (without it the bindings are read from the
// evidence chunks).
type WorkerBindings struct {
	Present                  bool
	Worker, Host, Role, Path []string
	Process                  Strings
	Count                    []int64
}

type bindingKey struct {
	worker, host, role, path string
	process                  *string
}

// bindingIndex gathers the distinct worker bindings of request evidence as
// it is read or encoded, counting how many bindings name each.
type bindingIndex struct {
	at   map[bindingMapKey]int
	rows []bindingRow
}

type bindingRow struct {
	key   bindingKey
	count int64
}

type bindingMapKey struct {
	worker, host, role, path, process string
	hasProcess                        bool
}

// add counts r's bindings that name a worker.
func (x *bindingIndex) add(r *model.RequestEvidence) {
	for _, b := range r.Bindings {
		if b.Worker == "" {
			continue
		}
		k := bindingMapKey{worker: b.Worker, host: b.Host, role: b.Role, path: b.Ref.Path}
		if b.Process != nil {
			k.process, k.hasProcess = *b.Process, true
		}
		j, ok := x.at[k]
		if !ok {
			if x.at == nil {
				x.at = map[bindingMapKey]int{}
			}
			j = len(x.rows)
			x.at[k] = j
			rk := bindingKey{worker: k.worker, host: k.host, role: k.role, path: k.path}
			if k.hasProcess {
				p := k.process
				rk.process = &p
			}
			x.rows = append(x.rows, bindingRow{key: rk})
		}
		x.rows[j].count++
	}
}

// hasEvidence reports whether d has server evidence, held or streamed.
func hasEvidence(d *model.Dataset) bool {
	return len(d.Evidence) > 0 || (d.StreamedEvidence != nil && d.StreamedEvidence.Len() > 0)
}

// encodeWorkerBindings gathers the distinct bindings of d's evidence,
// sorted by worker, host, role, process (null first) and path. Streamed
// evidence brings the index its chunks gathered as they were encoded.
func encodeWorkerBindings(d *model.Dataset) shard.Table {
	var x bindingIndex
	if s, ok := d.StreamedEvidence.(*StreamedEvidence); ok && len(d.Evidence) == 0 {
		x = s.bindings
	} else {
		for i := range d.Evidence {
			x.add(&d.Evidence[i])
		}
	}
	return x.table()
}

// table sorts the gathered rows into the worker_bindings table.
func (ix *bindingIndex) table() shard.Table {
	rows := slices.Clone(ix.rows)
	slices.SortFunc(rows, func(a, b bindingRow) int {
		x, y := a.key, b.key
		if c := cmp.Or(cmp.Compare(x.worker, y.worker), cmp.Compare(x.host, y.host), cmp.Compare(x.role, y.role)); c != 0 {
			return c
		}
		switch {
		case x.process == nil && y.process != nil:
			return -1
		case x.process != nil && y.process == nil:
			return 1
		case x.process != nil:
			if c := cmp.Compare(*x.process, *y.process); c != 0 {
				return c
			}
		}
		return cmp.Compare(x.path, y.path)
	})
	n := len(rows)
	return shard.Table{Name: TableWorkerBindings, Rows: n, Columns: []shard.Column{
		strCol("worker", n, func(i int) string { return rows[i].key.worker }),
		strCol("host", n, func(i int) string { return rows[i].key.host }),
		strCol("role", n, func(i int) string { return rows[i].key.role }),
		optStrCol("process", n, func(i int) *string { return rows[i].key.process }),
		strCol("path", n, func(i int) string { return rows[i].key.path }),
		intCol("bindings", n, func(i int) int64 { return rows[i].count }),
	}}
}

// workerBindings reads the table when the core holds it.
func (o *opener) workerBindings(c *Core) {
	t, ok := o.s.Table(TableWorkerBindings)
	if !ok {
		return
	}
	c.WorkerBindings = WorkerBindings{
		Present: true, Worker: o.strs(t, "worker"), Host: o.strs(t, "host"), Role: o.strs(t, "role"),
		Process: o.optStrs(t, "process"), Path: o.strs(t, "path"), Count: o.ints(t, "bindings"),
	}
}
