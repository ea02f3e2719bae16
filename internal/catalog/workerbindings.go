package catalog

import (
	"cmp"
	"slices"
	"strings"

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

// encodeWorkerBindings gathers the distinct bindings of d's evidence,
// sorted by worker, host, role, process (null first) and path.
func encodeWorkerBindings(d *model.Dataset) shard.Table {
	var x bindingIndex
	for i := range d.Evidence {
		x.add(d.Evidence[i].Bindings)
	}
	return x.table()
}

// bindingIndex counts distinct worker bindings as requests' evidence goes
// by, so that a build which encodes each request as it finishes it
// (EvidenceChunks) indexes them without holding the records.
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

func (x *bindingIndex) add(bindings []model.WorkerBinding) {
	if x.at == nil {
		x.at = map[bindingMapKey]int{}
	}
	for _, b := range bindings {
		if b.Worker == "" {
			continue
		}
		k := bindingMapKey{worker: b.Worker, host: b.Host, role: b.Role, path: b.Ref.Path}
		if b.Process != nil {
			k.process, k.hasProcess = *b.Process, true
		}
		j, ok := x.at[k]
		if !ok {
			// Cloned: the records may share a buffer that is reused once
			// they are encoded.
			k = bindingMapKey{strings.Clone(k.worker), strings.Clone(k.host), strings.Clone(k.role), strings.Clone(k.path), strings.Clone(k.process), k.hasProcess}
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

// table sorts the rows and lays them out as the worker_bindings table.
func (x *bindingIndex) table() shard.Table {
	rows := x.rows
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
