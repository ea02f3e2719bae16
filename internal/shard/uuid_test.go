package shard

import (
	"reflect"
	"strings"
	"testing"
)

func TestUUIDEncodings(t *testing.T) {
	ids := []string{"7609a2e7-aa53-4ab1-98f4-f35ecafefd25", "32ee4f33-cfca-4cfc-988f-79b45408b909", "77aa5b0e-b305-423f-88d5-c00da1892599"}
	cases := []struct {
		name string
		col  Column
		want Encoding
	}{
		{"distinct uuids", Column{Name: "c", Type: String, Strings: ids}, EncUUIDList},
		{"repeated uuids", Column{Name: "c", Type: String, Strings: []string{ids[0], ids[1], ids[0]}}, EncUUIDDictionary},
		{"distinct uuids with nulls", Column{Name: "c", Type: String, Strings: []string{ids[0], "", ids[2]}, Valid: []bool{true, false, true}}, EncUUIDList},
		{"upper case stays text", Column{Name: "c", Type: String, Strings: []string{strings.ToUpper(ids[0]), ids[1], ids[2]}}, EncDictionary},
		{"one non-uuid stays text", Column{Name: "c", Type: String, Strings: []string{ids[0], "client-line-2", ids[2]}}, EncDictionary},
		{"braced stays text", Column{Name: "c", Type: String, Strings: []string{"{" + ids[0][:34] + "}", ids[1], ids[2]}}, EncDictionary},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Shard{Kind: "k", Tables: []Table{{Name: "t", Rows: 3, Columns: []Column{c.col}}}}
			var p columnPlan
			p.plan(&s.Tables[0].Columns[0], 3, new([]byte))
			if p.enc != c.want {
				t.Fatalf("encoding %v, want %v", p.enc, c.want)
			}
			raw, err := Encode(s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Tables[0].Columns[0].Strings, c.col.Strings) {
				t.Fatalf("round trip: got %q want %q", got.Tables[0].Columns[0].Strings, c.col.Strings)
			}
			for cut := 1; cut < len(raw); cut++ {
				if _, err := Decode(raw[:cut]); err == nil {
					t.Fatalf("truncation at %d decoded", cut)
				}
			}
		})
	}
}
