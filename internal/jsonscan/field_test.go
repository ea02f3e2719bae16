package jsonscan

import "testing"

func TestReadNumberAndCount(t *testing.T) {
	for _, c := range []struct {
		in      string
		present bool
		count   string // "" for unknown
		err     bool
	}{
		{`42`, true, "42", false},
		{`null`, true, "", false},
		{`NaN`, true, "", false},
		{`1.5`, true, "", true},
		{`"7"`, false, "", true},
	} {
		s := Scanner{Dialect: Python}
		s.Reset([]byte(c.in))
		n, err := s.ReadNumber("f")
		if err == nil {
			var v *int64
			v, err = n.Count("f")
			got := ""
			if v != nil {
				got = string(n.Lit)
			}
			if got != c.count {
				t.Errorf("%s: count %q, want %q", c.in, got, c.count)
			}
		}
		if (err != nil) != c.err || n.Present != c.present {
			t.Errorf("%s: present %v err %v", c.in, n.Present, err)
		}
	}
}
