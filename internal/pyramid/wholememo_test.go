package pyramid

import "testing"

// A value kept from every row is dropped as soon as a chunk's rows change.
func TestWholeMemoDroppedWithRows(t *testing.T) {
	b, err := NewBuilder(Options{Temporal: Setting, Points: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{1, 2, 3} {
		if err := b.Add(int64(i+1)*1e9, v, false); err != nil {
			t.Fatal(err)
		}
	}
	p := b.Finish()
	if !p.Covers(0, 3e9) || p.Covers(2e9, 3e9) || p.Covers(0, 2e9) {
		t.Error("Covers does not say which ranges hold every row")
	}
	if p.WholeMemo() != nil {
		t.Fatal("a new pyramid holds a kept value")
	}
	p.SetWholeMemo(42)
	if v, _ := p.WholeMemo().(int); v != 42 {
		t.Fatalf("kept %v", p.WholeMemo())
	}
	p.Unload(0)
	if p.WholeMemo() != nil {
		t.Error("the kept value outlived its chunk's rows")
	}
}
