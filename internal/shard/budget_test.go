package shard

import (
	"strings"
	"testing"
)

// TestDecodeBudgetGrowsWithTheRawShard pins the rule every reader and the
// writer share: 256 MiB for any shard, 32 bytes a raw byte beyond that,
// never more than 2 GiB.
func TestDecodeBudgetGrowsWithTheRawShard(t *testing.T) {
	for _, c := range []struct {
		raw  int
		want int64
	}{
		{-1, 1 << 28},
		{0, 1 << 28},
		{1000, 1 << 28},
		{1 << 23, 1 << 28},        // 8 MiB raw: the floor still
		{10_000_000, 320_000_000}, // 32 × raw
		{76_183_016, 1 << 31},     // the core of a million requests (it takes 424 MB): the cap
		{1 << 26, 1 << 31},        // 64 MiB raw: the cap
		{maxRawBytes, 1 << 31},    // the largest raw shard
		{1<<28 + 12345, 1 << 31},  // beyond it (a reader refuses it elsewhere)
		{(1 << 28) / 32, 1 << 28}, // exactly where the ratio reaches the floor
	} {
		if got := DecodeBudget(c.raw); got != c.want {
			t.Errorf("DecodeBudget(%d) = %d, want %d", c.raw, got, c.want)
		}
	}
}

// TestShardOverTheFixedBudgetRoundTrips writes and reads a shard whose
// decoded columns take more than 256 MiB, as the core of a million
// requests does (424 MB from 76 MB raw). A fixed 256 MiB budget refused
// it at encode time, so no report of a run that size could be built.
func TestShardOverTheFixedBudgetRoundTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates ~1 GB")
	}
	const rows = maxRows // 4,194,304
	const cols = 9       // 9 × 8 B × 4 Mi rows = 288 MiB decoded
	tab := Table{Name: "requests", Rows: rows}
	vals := make([]int64, rows) // shared by every column: the test's own memory stays one column
	for i := range vals {
		vals[i] = int64(i*7919) % 100_003 // two or three varint bytes, not a delta run
	}
	for c := range cols {
		tab.Columns = append(tab.Columns, Column{Name: string(rune('a' + c)), Type: Int64, Ints: vals})
	}
	s := &Shard{Kind: "core", Tables: []Table{tab}}
	raw, err := Encode(s)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	budget := DecodeBudget(len(raw))
	if budget <= maxDecodedBytes {
		t.Fatalf("a %d-byte shard got the floor budget %d; the test needs one above it", len(raw), budget)
	}
	got, err := Decode(raw)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	g := got.Tables[0]
	if g.Rows != rows || len(g.Columns) != cols {
		t.Fatalf("decoded %d rows × %d columns, want %d × %d", g.Rows, len(g.Columns), rows, cols)
	}
	for _, c := range g.Columns {
		for _, i := range []int{0, 1, rows / 2, rows - 1} {
			if c.Ints[i] != vals[i] {
				t.Fatalf("column %s row %d = %d, want %d", c.Name, i, c.Ints[i], vals[i])
			}
		}
	}
	// Its frames decode under the whole shard's budget, as the report reads them.
	spans, err := FrameSpans(raw)
	if err != nil {
		t.Fatal(err)
	}
	frame := raw[spans[1].Start:spans[1].End]
	if _, err := DecodeTableFrames([][]byte{frame}, len(raw)); err != nil {
		t.Fatalf("DecodeTableFrames with the shard's size: %v", err)
	}
	// Read alone, without the shard's size, the frame gets only the floor.
	if _, err := DecodeTableFrames([][]byte{frame}, 0); err == nil || !strings.Contains(err.Error(), "decoded shard would exceed 268435456 bytes") {
		t.Fatalf("DecodeTableFrames at the floor: %v, want the budget to stop it", err)
	}
}

// TestEncodeRefusesWhatTheRawSizeCannotCarry: a shard of constant columns
// is a few bytes on disk, so it keeps the 256 MiB floor and the writer
// refuses more, naming its sizes, before any reader could be asked.
func TestEncodeRefusesWhatTheRawSizeCannotCarry(t *testing.T) {
	const rows = maxRows
	vals := make([]int64, rows)
	tab := Table{Name: "t", Rows: rows}
	for c := range 8 {
		tab.Columns = append(tab.Columns, Column{Name: string(rune('a' + c)), Type: Int64, Ints: vals})
	}
	tab.Columns = append(tab.Columns, Column{Name: "z", Type: Bool, Bools: make([]bool, rows)})
	_, err := Encode(&Shard{Kind: "k", Tables: []Table{tab}})
	if err == nil || !strings.Contains(err.Error(), "over the 268435456 a shard of") {
		t.Fatalf("Encode = %v, want the decoded budget to refuse it", err)
	}
}
