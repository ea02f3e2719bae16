package join

import (
	"encoding/hex"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/sourcename"
)

// WorkerLog is one worker log's identities with the worker its file name
// records. Its process bindings are kept compact (NewWorkerLog): a run of a
// million requests has two or more a request, and they wait from the scan
// of the logs to the end of the join.
type WorkerLog struct {
	Name       sourcename.Identity
	EngineMaps []model.EngineMap

	bindings []binding
	// strs holds the hosts, roles, process epochs and paths the bindings
	// record, and the request ids that are not canonical UUIDs; index 0
	// is "".
	strs strTable
	// window frames the bindings' times that carry an explicit offset.
	window timeWindow
}

// binding is a model.ProcessBinding as the join reads it: the request
// id, host, role, process epoch and line. Strings are indices into
// WorkerLog.strs.
type binding struct {
	id                        compactID
	line                      int64
	host, role, process, path uint32
}

// NewWorkerLog keeps what the join reads of a worker log's bindings (the
// request id, host, role, process epoch and line of each, and the span of
// their times that carry an offset, for Input.Window-less runs), in a
// fifth of the bytes of the records the log's scanner returns.
func NewWorkerLog(name sourcename.Identity, bindings []model.ProcessBinding, maps []model.EngineMap) WorkerLog {
	wl := WorkerLog{Name: name, EngineMaps: maps, bindings: make([]binding, len(bindings))}
	wl.strs.intern("") // index 0: no process epoch
	for k := range bindings {
		b, c := &bindings[k], &wl.bindings[k]
		c.line = b.Ref.Line
		c.host, c.role, c.process, c.path = wl.strs.intern(b.Host), wl.strs.intern(b.Role), wl.strs.intern(b.Process), wl.strs.intern(b.Ref.Path)
		c.id = newCompactID(b.ServerID, &wl.strs)
		wl.window.add(b.Time)
	}
	wl.strs.seal()
	return wl
}

// BindingWindow is the earliest and latest binding time that carries an
// explicit offset; ok is false when no binding records one.
func (wl *WorkerLog) BindingWindow() (lo, hi int64, ok bool) {
	return wl.window.lo, wl.window.hi, wl.window.timed
}

// serverID is binding b's request id as recorded, viewing buf.
func (wl *WorkerLog) serverID(b *binding, buf *[36]byte) []byte { return b.id.recorded(&wl.strs, buf) }

// parseUUID reads s as a canonical UUID: 36 characters, lowercase hex
// digits and hyphens at 8, 13, 18 and 23, so that formatUUID gives s back.
func parseUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	n := 0
	for i := 0; i < 36; i += 2 {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
		}
		hi, ok1 := lowerHex(s[i])
		lo, ok2 := lowerHex(s[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[n] = hi<<4 | lo
		n++
	}
	return u, n == 16
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// formatUUID writes u's canonical text into buf and returns it.
func formatUUID(buf *[36]byte, u *[16]byte) []byte {
	hex.Encode(buf[0:8], u[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], u[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], u[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], u[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:36], u[10:16])
	return buf[:]
}
