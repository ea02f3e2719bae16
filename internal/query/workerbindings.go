package query

// gatherBindings adds the request evidence's worker bindings to the
// workers get returns: from the core's worker_bindings index when it holds
// one (no evidence chunk is read, so the answer needs no evidence shard),
// else from every evidence chunk.
func (e *Engine) gatherBindings(get func(string) *workerAcc) error {
	if wb := &e.c.WorkerBindings; wb.Present {
		for i := range wb.Worker {
			a := get(wb.Worker[i])
			a.item.Evidence.Bindings += int(wb.Count[i])
			a.addBinding(wb.Host[i], wb.Role[i], wb.Process.At(i), wb.Path[i])
		}
		return nil
	}
	if whole, err := e.holdsAllEvidence(); err != nil {
		return err
	} else if !whole {
		return &Error{Code: CodeEvidencePending, Message: "workers: the server evidence is not loaded yet"}
	}
	for k := range e.c.ServerChunks {
		e.chunkMu.Lock()
		c, err := e.chunks.chunk(k, e.c.ServerChunk)
		e.chunkMu.Unlock()
		if err != nil {
			return err
		}
		for slot := 0; slot < c.Len(); slot++ {
			r, err := c.Request(slot)
			if err != nil {
				return err
			}
			for _, b := range r.Bindings {
				if b.Worker != "" {
					a := get(b.Worker)
					a.item.Evidence.Bindings++
					a.addBinding(b.Host, b.Role, b.Process, b.Ref.Path)
				}
			}
		}
	}
	return nil
}

// addBinding records what one binding says of the worker.
func (a *workerAcc) addBinding(host, role string, process *string, path string) {
	if host != "" {
		a.hosts[host] = true
	}
	if role != "" {
		a.roles[role] = true
	}
	if process != nil {
		a.processes[*process] = true
	}
	if path != "" {
		a.files[path] = true
	}
}
