package query

import (
	"encoding/json"
	"testing"
)

// The window's histogram counts the starts the whole-run overview counts,
// restricted to the window: over the whole run with the same bins it is the
// overview.
func TestWindowOverview(t *testing.T) {
	e, err := FromDataset(fixture())
	if err != nil {
		t.Fatal(err)
	}
	var whole Overview
	var win WindowOverview
	if err := json.Unmarshal(mustResult(t, e, `{"op":"overview","args":{"bins":12}}`), &whole); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustResult(t, e, `{"op":"window_overview","args":{"bins":12}}`), &win); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(win.Overview); string(got) != string(mustJSON(t, whole)) {
		t.Errorf("whole-run window %s, overview %s", got, mustJSON(t, whole))
	}
	if err := json.Unmarshal(mustResult(t, e, `{"op":"window_overview","args":{"from":2,"to":8,"bins":6}}`), &win); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range win.Counts {
		n += c
	}
	want := 0
	for i := range e.r.N {
		if e.r.Start[i] >= 2*s && e.r.Start[i] <= 8*s {
			want++
		}
	}
	if want == 0 || n != want || win.From != 2 || win.To != 8 || win.BinSeconds != 1 || win.Basis != "request starts" {
		t.Errorf("window %+v: %d starts, want %d", win, n, want)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
