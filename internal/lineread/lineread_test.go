package lineread

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	input := "a\n\n" + long + "\r\nlast"
	l := New(iotest.HalfReader(strings.NewReader(input)), 0)
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
		l := New(strings.NewReader(input), 10)
		for l.Next() {
		}
		if !errors.Is(l.Err(), ErrTooLong) || l.Line() != 2 {
			t.Errorf("got error %v on line %d, want ErrTooLong on line 2", l.Err(), l.Line())
		}
	}
	l := New(strings.NewReader("1234567890\n"), 10)
	if !l.Next() || l.Err() != nil {
		t.Errorf("a line of exactly the bound was rejected: %v", l.Err())
	}
}

func TestBlank(t *testing.T) {
	if !Blank([]byte(" \t\r\v\f")) || !Blank(nil) || Blank([]byte(" x ")) {
		t.Error("Blank misclassifies")
	}
}

func TestSkipLong(t *testing.T) {
	input := "a\r\n" + strings.Repeat("z", 300<<10) + "\nb\n" + strings.Repeat("w", 11)
	l := New(iotest.OneByteReader(strings.NewReader(input)), 10)
	l.SkipLong()
	var got []string
	for l.Next() {
		if l.Long() {
			got = append(got, "LONG")
			continue
		}
		got = append(got, string(l.Bytes()))
	}
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
	want := []string{"a\r", "LONG", "b", "LONG"}
	if strings.Join(got, ",") != strings.Join(want, ",") || l.Line() != 4 || l.Offset() != int64(len(input)) {
		t.Fatalf("got %q on %d lines, %d bytes", got, l.Line(), l.Offset())
	}
}

func TestRawAndTerminated(t *testing.T) {
	l := New(strings.NewReader("x\ny"), 0)
	if !l.Next() || string(l.Raw()) != "x\n" || !l.Terminated() || l.Offset() != 2 {
		t.Fatalf("first line %q", l.Raw())
	}
	if !l.Next() || string(l.Raw()) != "y" || l.Terminated() || l.Next() {
		t.Fatalf("last line %q", l.Raw())
	}
	err := error(&LineError{Path: "f", Line: 3, Err: ErrTooLong})
	if err.Error() != "f:3: line too long" || !errors.Is(err, ErrTooLong) {
		t.Fatalf("LineError %q", err)
	}
}
