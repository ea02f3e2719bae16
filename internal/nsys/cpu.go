package nsys

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/dsight/dsight/internal/model"
)

// cpu reads a frontend export's CPU samples: those of the process with the
// most frontend ranges, inside the capture, with their call chains.
func (r *reader) cpu() error {
	p := r.p
	if p.Worker != model.RoleFrontend {
		return nil
	}
	if !r.has("COMPOSITE_EVENTS") && !r.has("SAMPLING_CALLCHAINS") {
		return nil
	}
	if !r.need("COMPOSITE_EVENTS", "id", "start", "globalTid") || !r.need("SAMPLING_CALLCHAINS", "id", "symbol", "stackDepth") {
		return nil
	}
	// The frontend process: most frontend ranges, lowest pid on a tie.
	per := map[int64]int{}
	for _, x := range p.Ranges {
		if IsFrontendRange(p.Names[x.Name]) {
			per[model.PID(x.GlobalTID)]++
		}
	}
	pid, best := int64(-1), 0
	for q, n := range per {
		if n > best || n == best && q < pid {
			pid, best = q, n
		}
	}
	if pid < 0 {
		return nil
	}
	unresolved := "0"
	if r.tables["SAMPLING_CALLCHAINS"]["unresolved"] {
		unresolved = "coalesce(s.unresolved, 0)"
	} else {
		r.missing("SAMPLING_CALLCHAINS.unresolved")
	}
	rows, err := r.db.Query(`SELECT c.id, c.start, c.globalTid, s.symbol, `+unresolved+`
		FROM COMPOSITE_EVENTS c JOIN SAMPLING_CALLCHAINS s ON s.id = c.id
		WHERE ((c.globalTid >> 24) & 16777215) = ? AND c.start >= ? AND c.start <= ?
		ORDER BY c.start, c.id, s.stackDepth`, pid, p.Capture[0], p.Capture[1])
	if err != nil {
		return fmt.Errorf("CPU samples: %w", err)
	}
	defer rows.Close()
	cpu := &model.CPUSamples{PID: pid, Samples: []model.CPUSample{}}
	symbols := map[string]int32{}
	stacks := map[string]int32{}
	var cur model.CPUSample
	var frames []int32
	have := false
	flush := func() {
		if !have {
			return
		}
		var key strings.Builder
		for _, f := range frames {
			fmt.Fprintf(&key, "%d,", f)
		}
		k, ok := stacks[key.String()]
		if !ok {
			k = int32(len(cpu.Stacks))
			stacks[key.String()] = k
			cpu.Stacks = append(cpu.Stacks, slices.Clone(frames))
		}
		cur.Stack = k
		cpu.Samples = append(cpu.Samples, cur)
	}
	for rows.Next() {
		var id, start, sym, unres int64
		var g sql.NullInt64
		if err := rows.Scan(&id, &start, &g, &sym, &unres); err != nil {
			return fmt.Errorf("CPU samples: %w", err)
		}
		if !have || id != cur.ID {
			flush()
			cur, frames, have = model.CPUSample{ID: id, TimeNS: start, GlobalTID: g.Int64}, frames[:0], true
		}
		name, ok := r.names[sym]
		switch {
		case !ok:
			name = "[unresolved]"
		case unres != 0:
			name = "[unresolved] " + name
		}
		k, ok := symbols[name]
		if !ok {
			k = int32(len(cpu.Symbols))
			symbols[name] = k
			cpu.Symbols = append(cpu.Symbols, name)
		}
		frames = append(frames, k)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("CPU samples: %w", err)
	}
	flush()
	p.CPU = cpu
	return nil
}
