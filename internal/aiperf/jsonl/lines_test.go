package jsonl

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	input := "a\n\n" + long + "\r\nlast"
	l := NewLines(iotest.HalfReader(strings.NewReader(input)), 0)
	var got []string
	for l.Next() {
		got = append(got, string(l.Bytes()))
	}
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
	want := []string{"a", "", long + "\r", "last"}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %d bytes, want %d", i+1, len(got[i]), len(want[i]))
		}
	}
	if l.Line() != 4 {
		t.Errorf("Line() = %d, want 4", l.Line())
	}
}

func TestLinesBound(t *testing.T) {
	for _, input := range []string{"ok\n" + strings.Repeat("y", 2<<20) + "\nafter\n", "ok\n12345678901"} {
		l := NewLines(strings.NewReader(input), 10)
		for l.Next() {
		}
		if !errors.Is(l.Err(), ErrLineTooLong) || l.Line() != 2 {
			t.Errorf("got error %v on line %d, want ErrLineTooLong on line 2", l.Err(), l.Line())
		}
	}
	l := NewLines(strings.NewReader("1234567890\n"), 10)
	if !l.Next() || l.Err() != nil {
		t.Errorf("a line of exactly the bound was rejected: %v", l.Err())
	}
}

func TestBlank(t *testing.T) {
	if !Blank([]byte(" \t\r\v\f")) || !Blank(nil) || Blank([]byte(" x ")) {
		t.Error("Blank misclassifies")
	}
}
