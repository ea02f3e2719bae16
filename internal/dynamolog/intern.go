package dynamolog

// interned keeps one copy of the values a log repeats on nearly every
// binding line (the host, the role as recorded, the process epoch): a
// worker log records a handful of them across millions of lines, and each
// decoded line would otherwise hold its own copy until the join.
type interned struct {
	m map[string]string
}

// maxInterned bounds the table: values past it (a log whose "repeated"
// fields are in fact unique) are kept as decoded.
const maxInterned = 4096

func (t *interned) of(s string) string {
	if v, ok := t.m[s]; ok {
		return v
	}
	if t.m == nil {
		t.m = map[string]string{}
	}
	if len(t.m) < maxInterned {
		t.m[s] = s
	}
	return s
}
