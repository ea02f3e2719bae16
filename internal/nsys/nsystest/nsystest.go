// Package nsystest writes Nsight Systems SQLite exports with the schema of
// `nsys export --type sqlite` (the DDL of nsys 2024.6, plus the
// systemClockNs column newer versions add), for tests and the generator.
package nsystest

import (
	"database/sql"
	"fmt"
	"os"
	"slices"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Export describes one file.
type Export struct {
	EpochNS       int64
	SystemClockNS int64
	NoSystemClock bool // the 2024.6 schema, without systemClockNs
	NoAnchorRow   bool // TARGET_INFO_SESSION_START_TIME without a row
	StartTime     int64
	StopTime      int64
	Host          string
	Ranges        []Range
	Threads       []Thread
	Samples       []Sample
	CUDA          bool
	Diagnostics   []Diagnostic
	// Omit leaves these tables out.
	Omit []string
}

// Range is one NVTX_EVENTS row. A name goes to StringIds unless Inline;
// an empty Name with Null writes no name at all.
type Range struct {
	Start     int64
	End       *int64 // nil: a mark
	Name      string
	Inline    bool // in the text column rather than StringIds
	Null      bool
	GlobalTID int64
}

// Thread is one ThreadNames row.
type Thread struct {
	GlobalTID int64
	Name      string
}

// Sample is one COMPOSITE_EVENTS row with its call chain, leaf first.
type Sample struct {
	Start      int64
	GlobalTID  int64
	Frames     []string
	Unresolved []bool // per frame, optional
}

// Diagnostic is one DIAGNOSTIC_EVENT row.
type Diagnostic struct {
	Severity int
	Text     string
}

// End is a helper for Range.End.
func End(t int64) *int64 { return &t }

var ddl = map[string]string{
	"StringIds":                      `CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)`,
	"ThreadNames":                    `CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER)`,
	"PROCESSES":                      `CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT)`,
	"ANALYSIS_DETAILS":               `CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER NOT NULL, duration INTEGER NOT NULL, startTime INTEGER NOT NULL, stopTime INTEGER NOT NULL)`,
	"TARGET_INFO_SYSTEM_ENV":         `CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL, name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL)`,
	"NVTX_EVENTS":                    `CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT)`,
	"COMPOSITE_EVENTS":               `CREATE TABLE COMPOSITE_EVENTS (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, cpu INTEGER, threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER NOT NULL)`,
	"SAMPLING_CALLCHAINS":            `CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL, kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER, originalIP INTEGER, unwindMethod INTEGER, stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth))`,
	"DIAGNOSTIC_EVENT":               `CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER, timestampType INTEGER, source INTEGER, severity INTEGER, text TEXT, globalPid INTEGER)`,
	"CUPTI_ACTIVITY_KIND_KERNEL":     `CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, globalPid INTEGER, shortName INTEGER NOT NULL)`,
	"TARGET_INFO_SESSION_START_TIME": `CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT, systemClockNs INTEGER)`,
}

var order = []string{"StringIds", "ThreadNames", "PROCESSES", "ANALYSIS_DETAILS", "TARGET_INFO_SYSTEM_ENV",
	"NVTX_EVENTS", "COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS", "DIAGNOSTIC_EVENT", "CUPTI_ACTIVITY_KIND_KERNEL",
	"TARGET_INFO_SESSION_START_TIME"}

// Write creates the export at path (replacing any file there).
func Write(path string, e Export) (err error) {
	_ = os.Remove(path)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(off)&_pragma=synchronous(off)")
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}()
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	w := &writer{tx: tx, ids: map[string]int64{}}
	for _, t := range order {
		if slices.Contains(e.Omit, t) || t == "CUPTI_ACTIVITY_KIND_KERNEL" && !e.CUDA {
			continue
		}
		q := ddl[t]
		if t == "TARGET_INFO_SESSION_START_TIME" && e.NoSystemClock {
			q = `CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)`
		}
		if _, err := tx.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	has := func(t string) bool { return !slices.Contains(e.Omit, t) }
	if has("TARGET_INFO_SESSION_START_TIME") && !e.NoAnchorRow {
		if e.NoSystemClock {
			err = w.exec(`INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '', '')`, e.EpochNS)
		} else {
			err = w.exec(`INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '', '', ?)`, e.EpochNS, e.SystemClockNS)
		}
		if err != nil {
			return err
		}
	}
	if has("ANALYSIS_DETAILS") {
		if err := w.exec(`INSERT INTO ANALYSIS_DETAILS VALUES (0, ?, ?, ?)`, e.StopTime-e.StartTime, e.StartTime, e.StopTime); err != nil {
			return err
		}
	}
	if has("TARGET_INFO_SYSTEM_ENV") && e.Host != "" {
		if err := w.exec(`INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'host', 'Hostname', 1, ?)`, e.Host); err != nil {
			return err
		}
	}
	if has("NVTX_EVENTS") {
		ins, err := tx.Prepare(`INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, r := range e.Ranges {
			var text, textID, end any
			kind := 34
			if r.End != nil {
				end, kind = *r.End, 59
			}
			switch {
			case r.Null:
			case r.Inline || !has("StringIds"):
				text = r.Name
			default:
				if textID, err = w.id(r.Name); err != nil {
					return err
				}
			}
			if _, err := ins.Exec(r.Start, end, kind, text, r.GlobalTID, textID); err != nil {
				return err
			}
		}
	}
	if has("ThreadNames") {
		for _, th := range e.Threads {
			id, err := w.id(th.Name)
			if err != nil {
				return err
			}
			if err := w.exec(`INSERT INTO ThreadNames VALUES (?, 0, ?)`, id, th.GlobalTID); err != nil {
				return err
			}
		}
	}
	if has("COMPOSITE_EVENTS") && has("SAMPLING_CALLCHAINS") {
		for k, s := range e.Samples {
			if err := w.exec(`INSERT INTO COMPOSITE_EVENTS VALUES (?, ?, 0, 1, ?, 0)`, k+1, s.Start, s.GlobalTID); err != nil {
				return err
			}
			for d, f := range s.Frames {
				id, err := w.id(f)
				if err != nil {
					return err
				}
				unres := 0
				if d < len(s.Unresolved) && s.Unresolved[d] {
					unres = 1
				}
				if err := w.exec(`INSERT INTO SAMPLING_CALLCHAINS (id, symbol, module, unresolved, stackDepth) VALUES (?, ?, 0, ?, ?)`, k+1, id, unres, d); err != nil {
					return err
				}
			}
		}
	}
	if has("DIAGNOSTIC_EVENT") {
		for _, d := range e.Diagnostics {
			if err := w.exec(`INSERT INTO DIAGNOSTIC_EVENT (severity, text) VALUES (?, ?)`, d.Severity, d.Text); err != nil {
				return err
			}
		}
	}
	if has("StringIds") {
		// In id order, so the same export always gives the same bytes.
		for k, s := range w.order {
			if err := w.exec(`INSERT INTO StringIds VALUES (?, ?)`, k+1, s); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

type writer struct {
	tx    *sql.Tx
	ids   map[string]int64
	order []string
}

func (w *writer) exec(q string, args ...any) error {
	_, err := w.tx.Exec(q, args...)
	return err
}

func (w *writer) id(s string) (int64, error) {
	if id, ok := w.ids[s]; ok {
		return id, nil
	}
	id := int64(len(w.ids) + 1)
	w.ids[s] = id
	w.order = append(w.order, s)
	return id, nil
}
