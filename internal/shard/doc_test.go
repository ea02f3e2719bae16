package shard

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const docPath = "../../docs/format/shard.md"

func readDoc(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// TestDocListsEnums finds every exported Type and Encoding constant in the
// package source and requires a row in docs/format/shard.md that names it
// with its byte value and its String() form, so the doc cannot fall behind.
func TestDocListsEnums(t *testing.T) {
	doc := readDoc(t)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				typ, ok := vs.Type.(*ast.Ident)
				if !ok || (typ.Name != "Type" && typ.Name != "Encoding") {
					continue
				}
				for i, id := range vs.Names {
					if !id.IsExported() {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: %s must have a literal value so its byte is explicit", name, id.Name)
					}
					v, err := strconv.ParseUint(lit.Value, 0, 8)
					if err != nil {
						t.Fatal(err)
					}
					str := Type(v).String()
					if typ.Name == "Encoding" {
						str = Encoding(v).String()
					}
					found++
					if !hasRow(doc, fmt.Sprintf("| %d |", v), "`"+id.Name+"`", "`"+str+"`") {
						t.Errorf("%s has no table row with | %d |, `%s` and `%s`", docPath, v, id.Name, str)
					}
				}
			}
		}
	}
	if found < 10 {
		t.Fatalf("found only %d Type and Encoding constants; is the source scan broken?", found)
	}
}

func hasRow(doc string, parts ...string) bool {
	for _, line := range strings.Split(doc, "\n") {
		all := true
		for _, p := range parts {
			if !strings.Contains(line, p) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// TestDocExample checks the annotated bytes of the worked example, offsets
// included, against the encoder.
func TestDocExample(t *testing.T) {
	doc := readDoc(t)
	_, block, ok := strings.Cut(doc, "<!-- example-bytes -->\n```text\n")
	if !ok {
		t.Fatal("worked example not found in the doc")
	}
	block, _, _ = strings.Cut(block, "```")
	var got []byte
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		fields := strings.Split(line, "|")
		if len(fields) != 3 {
			t.Fatalf("example line %q: want offset | bytes | comment", line)
		}
		off, err := strconv.ParseUint(strings.TrimSpace(fields[0]), 16, 32)
		if err != nil || int(off) != len(got) {
			t.Fatalf("example line %q: offset should be %02x", line, len(got))
		}
		b, err := hex.DecodeString(strings.ReplaceAll(fields[1], " ", ""))
		if err != nil {
			t.Fatalf("example line %q: %v", line, err)
		}
		got = append(got, b...)
	}
	want, err := Encode(exampleShard())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("doc example bytes differ from Encode:\ndoc:\n%s\nencoder:\n%s", hex.Dump(got), hex.Dump(want))
	}
}
