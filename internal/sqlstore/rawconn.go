package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawConn is the store's one connection, opened on the SQLite library the
// driver links but without the driver around it. The writer is a single
// goroutine, so the connection is opened SQLITE_OPEN_NOMUTEX (the driver
// opens every connection FULLMUTEX, and its recursive mutex is taken on
// every bind), values are bound by position (the driver asks each
// parameter's name first) and strings are bound from the Go string itself
// (the driver copies each one into a C allocation and frees it after the
// step). Measured at scale 10, binding was over a third of the write's CPU.
//
// Strings are copied into one C buffer a statement keeps (textArena): SQLite
// may only be handed C memory, since the library reads every pointer it is
// given back from a uintptr, which Go allows for memory outside its heap
// only (go test -race, whose pointer checks are on, stops at the first Go
// string SQLite reads).
type rawConn struct {
	tls *libc.TLS
	db  uintptr
}

func openRaw(path string) (*rawConn, error) {
	tls := libc.NewTLS()
	c := &rawConn{tls: tls}
	name, err := libc.CString(path)
	if err != nil {
		tls.Close()
		return nil, err
	}
	defer libc.Xfree(tls, name)
	pdb := tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer tls.Free(int(unsafe.Sizeof(uintptr(0))))
	rc := sqlite3.Xsqlite3_open_v2(tls, name, pdb, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_CREATE|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	c.db = libc.AtomicLoadNUintptr(pdb, 0) // pdb is C memory from tls.Alloc
	if rc != sqlite3.SQLITE_OK {
		err := c.errorf(rc)
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *rawConn) errorf(rc int32) error {
	if c.db == 0 {
		return fmt.Errorf("sqlite error %d", rc)
	}
	return fmt.Errorf("%s (%d)", libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)), rc)
}

// Close closes the database and releases the thread state.
func (c *rawConn) Close() error {
	var err error
	if c.db != 0 {
		if rc := sqlite3.Xsqlite3_close_v2(c.tls, c.db); rc != sqlite3.SQLITE_OK {
			err = c.errorf(rc)
		}
		c.db = 0
	}
	if c.tls != nil {
		c.tls.Close()
		c.tls = nil
	}
	return err
}

// PrepareContext prepares one statement.
func (c *rawConn) PrepareContext(_ context.Context, query string) (driver.Stmt, error) {
	q, err := libc.CString(query)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, q)
	pst := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, q, -1, pst, 0); rc != sqlite3.SQLITE_OK {
		return nil, c.errorf(rc)
	}
	st := libc.AtomicLoadNUintptr(pst, 0) // pst is C memory from tls.Alloc
	if st == 0 {
		return nil, errors.New("sqlite store: empty statement")
	}
	return &rawStmt{c: c, st: st, text: textArena{tls: c.tls}}, nil
}

// ExecContext runs query: through sqlite3_exec (every statement in it)
// without arguments, else as one prepared statement.
func (c *rawConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) == 0 {
		q, err := libc.CString(query)
		if err != nil {
			return nil, err
		}
		defer libc.Xfree(c.tls, q)
		if rc := sqlite3.Xsqlite3_exec(c.tls, c.db, q, 0, 0, 0); rc != sqlite3.SQLITE_OK {
			return nil, c.errorf(rc)
		}
		return driver.ResultNoRows, nil
	}
	st, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.(*rawStmt).ExecContext(ctx, args)
}

// rawStmt is a prepared statement of a rawConn.
type rawStmt struct {
	c  *rawConn
	st uintptr
	// text holds the bytes of the strings bound SQLITE_STATIC until the
	// next execution rebinds them.
	text textArena
}

func (s *rawStmt) Close() error {
	if s.st == 0 {
		return nil
	}
	rc := sqlite3.Xsqlite3_finalize(s.c.tls, s.st)
	s.st = 0
	s.text.free()
	if rc != sqlite3.SQLITE_OK {
		return s.c.errorf(rc)
	}
	return nil
}

func (s *rawStmt) NumInput() int { return -1 }

func (s *rawStmt) Exec(args []driver.Value) (driver.Result, error) {
	named := make([]driver.NamedValue, len(args))
	for i, v := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return s.ExecContext(context.Background(), named)
}

func (s *rawStmt) Query([]driver.Value) (driver.Rows, error) {
	return nil, errors.New("sqlite store: the writer does not query")
}

// ExecContext binds args by position and steps the statement once.
func (s *rawStmt) ExecContext(_ context.Context, args []driver.NamedValue) (driver.Result, error) {
	tls, st := s.c.tls, s.st
	if err := s.text.fit(args); err != nil {
		return nil, err
	}
	for i, a := range args {
		k := int32(i + 1)
		var rc int32
		switch v := a.Value.(type) {
		case nil:
			rc = sqlite3.Xsqlite3_bind_null(tls, st, k)
		case int64:
			rc = sqlite3.Xsqlite3_bind_int64(tls, st, k, v)
		case float64:
			rc = sqlite3.Xsqlite3_bind_double(tls, st, k, v)
		case bool:
			var n int64
			if v {
				n = 1
			}
			rc = sqlite3.Xsqlite3_bind_int64(tls, st, k, n)
		case string:
			// SQLITE_STATIC (0): SQLite reads the bytes while it steps;
			// the arena keeps them until the next execution.
			rc = sqlite3.Xsqlite3_bind_text(tls, st, k, s.text.put(v), int32(len(v)), 0)
		default:
			return nil, fmt.Errorf("sqlite store: no SQL value for %T", v)
		}
		if rc != sqlite3.SQLITE_OK {
			return nil, s.c.errorf(rc)
		}
	}
	rc := sqlite3.Xsqlite3_step(tls, st)
	if rrc := sqlite3.Xsqlite3_reset(tls, st); rc == sqlite3.SQLITE_DONE || rc == sqlite3.SQLITE_ROW {
		rc = rrc
	}
	if rc != sqlite3.SQLITE_OK && rc != sqlite3.SQLITE_DONE && rc != sqlite3.SQLITE_ROW {
		return nil, s.c.errorf(rc)
	}
	return driver.ResultNoRows, nil
}
