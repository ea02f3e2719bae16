package aiperf

// sharedText hands out one *string per distinct value of the fields
// nearly every row repeats (the client worker, the benchmark phase): a
// run has a few dozen of them across a million rows, and each kept
// request would otherwise hold its own copy and pointer until the report
// is written.
type sharedText struct {
	m map[string]*string
}

// maxShared bounds the table: values past it are kept per row.
const maxShared = 4096

func (t *sharedText) ptr(v text) *string {
	if !v.ok {
		return nil
	}
	if p, ok := t.m[v.s]; ok {
		return p
	}
	p := v.ptr()
	if t.m == nil {
		t.m = map[string]*string{}
	}
	if len(t.m) < maxShared {
		t.m[v.s] = p
	}
	return p
}

// sharedIDs keeps one copy of each session, agent, conversation and
// parent id: every turn of a session repeats them, and a million-request
// export holds each request's until the report is written. It lives as
// long as one export's parse.
type sharedIDs struct {
	m map[string]string
}

// maxSharedIDs bounds the table: values past it are kept per row.
const maxSharedIDs = 1 << 20

func (t *sharedIDs) of(v text) text {
	if !v.ok {
		return v
	}
	if s, ok := t.m[v.s]; ok {
		return text{s, true}
	}
	if t.m == nil {
		t.m = map[string]string{}
	}
	if len(t.m) < maxSharedIDs {
		t.m[v.s] = v.s
	}
	return v
}
