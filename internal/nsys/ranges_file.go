package nsys

import (
	"database/sql"
	"errors"
	"os"
	"strings"
)

// rangesFromFile reads NVTX_EVENTS with the file-format reader
// (sqlitefile.go). It returns nil whenever it declines:
// a layout it does not read (WITHOUT ROWID, generated or rowid-alias
// columns, REAL affinity, a -wal or -journal file beside the export), a
// structure it finds corrupt, or a value the driver would convert or
// refuse (a start that is not an integer, a real or text in an id column,
// an empty or numeric name). The driver then reads the table, so either
// way the profile is the one the driver gives.
func (r *reader) rangesFromFile(t string) *rangeBuilder {
	if !r.fromFile || r.path == "" {
		return nil
	}
	for _, side := range []string{"-wal", "-journal"} {
		if _, err := os.Stat(r.path + side); !errors.Is(err, os.ErrNotExist) {
			return nil
		}
	}
	var root int64
	var ddl sql.NullString
	if err := r.db.QueryRow(`SELECT rootpage, sql FROM sqlite_master WHERE type = 'table' AND name = ?`, t).Scan(&root, &ddl); err != nil {
		return nil
	}
	if root <= 0 || root > 1<<32-1 || !ddl.Valid || strings.Contains(strings.ToLower(ddl.String), "without") {
		return nil
	}
	// The record position of each column read, or -1 when the table lacks
	// it (the driver path selects NULL then).
	want := map[string]int{"start": -1, "end": -1, "text": -1, "textId": -1, "globalTid": -1}
	rows, err := r.db.Query(`SELECT cid, name, type, pk, dflt_value IS NULL, hidden FROM pragma_table_xinfo(?)`, t)
	if err != nil {
		return nil
	}
	ok, pks, aliases := true, 0, ""
	for rows.Next() {
		var cid, pk, hidden int64
		var name, typ string
		var noDefault bool
		if rows.Scan(&cid, &name, &typ, &pk, &noDefault, &hidden) != nil {
			ok = false
			break
		}
		if hidden != 0 { // a generated column: not stored where its cid says
			ok = false
		}
		if pk > 0 {
			pks++
			if strings.EqualFold(typ, "INTEGER") {
				aliases = name
			}
		}
		if _, used := want[name]; !used {
			continue
		}
		// A row written before ALTER TABLE ADD COLUMN has no value for the
		// column; declined unless its default is NULL.
		if !noDefault {
			ok = false
		}
		aff := affinity(typ)
		if aff == "REAL" || name != "text" && aff != "INTEGER" {
			ok = false // read back converted, or stored as text
		}
		want[name] = int(cid)
	}
	rows.Close()
	if !ok || rows.Err() != nil || want["start"] < 0 || want["end"] < 0 {
		return nil
	}
	if pks == 1 && aliases != "" {
		if _, used := want[aliases]; used {
			return nil // the column is the rowid, stored as NULL in records
		}
	}
	f, err := os.Open(r.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	size, err := fileSize(f)
	if err != nil {
		return nil
	}
	s, err := openSQLiteFile(f, size)
	if err != nil {
		return nil
	}
	b, err := scanNVTX(s, uint32(root), r.p.Capture, r.names, want)
	if err != nil {
		return nil
	}
	r.fileRead = true
	return b
}

// errDecline ends a scan at a value the driver would read differently.
var errDecline = errors.New("value left to the driver")

// scanNVTX reads the NVTX_EVENTS b-tree at root; cols gives each column's
// record position (-1: absent).
func scanNVTX(s *sqliteFile, root uint32, capture [2]int64, names map[int64]string, cols map[string]int) (*rangeBuilder, error) {
	// Sized first: growing by appending would copy every range about twice
	// and hold two copies at once. The rowid span bounds the row count
	// exactly for an export's dense rowids; when it is much larger than the
	// file could hold, a walk counts the rows without decoding them.
	n, ok := s.rowidSpan(root)
	if !ok || n > s.size/8 {
		var err error
		if n, err = s.countRows(root); err != nil {
			return nil, err
		}
	}
	b := newRangeBuilder(capture, names, n)
	// Where each record column lands: fields[i] for column i, up to the
	// last column read.
	const (
		fNone = iota
		fStart
		fEnd
		fText
		fTextID
		fTID
	)
	var fields []uint8
	for name, f := range map[string]uint8{"start": fStart, "end": fEnd, "text": fText, "textId": fTextID, "globalTid": fTID} {
		if k := cols[name]; k >= 0 {
			for len(fields) <= k {
				fields = append(fields, fNone)
			}
			fields[k] = f
		}
	}
	var x nvtxRow
	err := s.scanTable(root, func(rowid int64, rec []byte) error {
		x = nvtxRow{rowid: rowid}
		hsize, n := varint(rec)
		if n == 0 || hsize < uint64(n) || hsize > uint64(len(rec)) {
			return corrupt("record header")
		}
		hdr, body := rec[n:hsize], rec[hsize:]
		var start value
		for _, f := range fields {
			if len(hdr) == 0 {
				break // columns added after the row was written: NULL
			}
			t := uint64(hdr[0])
			if t < 0x80 {
				hdr = hdr[1:]
			} else if t, n = varint(hdr); n == 0 {
				return corrupt("record header")
			} else {
				hdr = hdr[n:]
			}
			size := serialSize(t)
			if size < 0 || uint64(len(body)) < uint64(size) {
				return corrupt("record body")
			}
			if f != fNone {
				v := decode(t, body[:size])
				switch f {
				case fStart:
					start = v
				case fText:
					switch {
					case v.kind == valNull:
					case (v.kind == valText || v.kind == valBlob) && len(v.b) > 0:
						x.txt = v.b
					default:
						return errDecline
					}
				default:
					d := &x.tid
					switch f {
					case fEnd:
						d = &x.end
					case fTextID:
						d = &x.id
					}
					switch v.kind {
					case valNull:
					case valInt:
						*d = sql.NullInt64{Int64: v.i, Valid: true}
					default:
						return errDecline
					}
				}
			}
			body = body[size:]
		}
		if start.kind != valInt {
			return errDecline
		}
		x.start = start.i
		b.add(&x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// affinity is a declared column type's affinity, by SQLite's rules
// (https://sqlite.org/datatype3.html, 3.1).
func affinity(typ string) string {
	t := strings.ToUpper(typ)
	switch {
	case strings.Contains(t, "INT"):
		return "INTEGER"
	case strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"):
		return "TEXT"
	case t == "", strings.Contains(t, "BLOB"):
		return "BLOB"
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOA"), strings.Contains(t, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}
