package spanspill

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// Span names and attribute keys are spilled as indices into the store's
// table: a generated run's spans take far fewer bytes than written inline,
// and read back the same.
func TestNamesShrinkTheSpill(t *testing.T) {
	spans := generatedSpans(t)
	s, err := New(t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inline := 0
	for k := range spans {
		inline += len(appendSpan(nil, &spans[k], 1, 1, 0))
		if err := s.Add(0, &spans[k]); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d spans: %d bytes spilled, %d inline (%.0f%%)", len(spans), s.Bytes(), inline, 100*float64(s.Bytes())/float64(inline))
	if s.Bytes() > int64(inline)*3/4 {
		t.Errorf("spilled %d bytes, written inline %d: the names are not shared", s.Bytes(), inline)
	}
	got, err := s.Read(0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(evidenceBytes(got), evidenceBytes(spans)) {
		t.Fatal("spans read back encode differently")
	}
}

// The table is bounded: past maxNames entries, and for a name longer than
// maxNameBytes, names are written inline and still read back.
func TestNamesTableIsBounded(t *testing.T) {
	s, err := New(t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var want []model.Span
	for k := range 3 {
		sp := model.Span{TraceID: "t", SpanID: fmt.Sprint(k), Name: strings.Repeat("n", maxNameBytes+1)}
		for j := range maxNames {
			sp.Attrs = append(sp.Attrs, model.Attr{Key: fmt.Sprintf("key-%d-%d", k, j), Value: model.IntValue(int64(j))})
		}
		if err := s.Add(0, &sp); err != nil {
			t.Fatal(err)
		}
		want = append(want, sp)
	}
	if n := len(s.names.list); n != maxNames {
		t.Errorf("table holds %d names, bound %d", n, maxNames)
	}
	got, err := s.Read(0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(evidenceBytes(got), evidenceBytes(want)) {
		t.Fatal("spans past the table's bound read back differently")
	}
}
