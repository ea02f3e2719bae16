package sqlstore

import (
	"database/sql/driver"
	"errors"
	"unsafe"

	"modernc.org/libc"
)

// textArena is one C allocation that a statement's string arguments are
// copied into before they are bound, grown when a row's strings outgrow
// it and reused for every row after. One copy per string and no
// allocation per row: the driver mallocs and frees each string.
type textArena struct {
	tls  *libc.TLS
	base uintptr // C memory, 0 until first grown
	size int
	used int
}

// fit makes room for every string of args (each with a terminating zero,
// so an empty string still has an address: a NULL pointer binds SQL NULL)
// and starts the row's copies from the arena's beginning.
func (a *textArena) fit(args []driver.NamedValue) error {
	need := 0
	for _, arg := range args {
		if v, ok := arg.Value.(string); ok {
			need += len(v) + 1
		}
	}
	a.used = 0
	if need <= a.size {
		return nil
	}
	size := max(need, 2*a.size, 4096)
	base := libc.Xrealloc(a.tls, a.base, libc.Tsize_t(size))
	if base == 0 {
		return errors.New("sqlite store: out of memory for a row's text")
	}
	a.base, a.size = base, size
	return nil
}

// put copies v into the arena and returns its C address. fit must have
// made room for it.
func (a *textArena) put(v string) uintptr {
	p := a.base + uintptr(a.used)
	// The arena is C memory (libc's allocator, outside the Go heap), so a
	// Go view of it may be made from its address.
	dst := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), p)), len(v)+1)
	copy(dst, v)
	dst[len(v)] = 0
	a.used += len(v) + 1
	return p
}

func (a *textArena) free() {
	if a.base != 0 {
		libc.Xfree(a.tls, a.base)
		a.base, a.size, a.used = 0, 0, 0
	}
}
