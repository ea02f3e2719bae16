package join

// procTable is what the spans joining each request record as their
// process epoch per host, role and request id (Stream.procs). A run of a
// million requests holds several entries a request from the route pass
// to the end of the join, so a key whose parts fit in 64 bits (as every
// report's do: a report holds at most 2^22 requests) is packed into one.
type procTable struct {
	packed map[uint64]procState
	wide   map[procKey]procState
}

// The bits of a packed procKey: request, rid, host and role.
const (
	procRequestBits = 22
	procRIDBits     = 8
	procHostBits    = 17
	procRoleBits    = 64 - procRequestBits - procRIDBits - procHostBits
)

func newProcTable() procTable {
	return procTable{packed: map[uint64]procState{}, wide: map[procKey]procState{}}
}

func (k procKey) pack() (uint64, bool) {
	if k.request>>procRequestBits != 0 || k.rid>>procRIDBits != 0 || k.host>>procHostBits != 0 || k.role>>procRoleBits != 0 {
		return 0, false
	}
	v := uint64(k.request)
	v = v<<procRIDBits | uint64(k.rid)
	v = v<<procHostBits | uint64(k.host)
	return v<<procRoleBits | uint64(k.role), true
}

func (t *procTable) get(k procKey) (procState, bool) {
	var st procState
	var ok bool
	if p, fits := k.pack(); fits {
		st, ok = t.packed[p]
	} else {
		st, ok = t.wide[k]
	}
	return st, ok
}

func (t *procTable) put(k procKey, st procState) {
	if p, fits := k.pack(); fits {
		t.packed[p] = st
	} else {
		t.wide[k] = st
	}
}
