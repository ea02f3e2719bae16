package otlp

import (
	"encoding/json"
	"github.com/dsight/dsight/internal/golden"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// goldenInputs lists the decoder inputs in testdata.
func goldenInputs(t testing.TB) []string {
	var inputs []string
	for _, pattern := range []string{"testdata/*.json", "testdata/*.jsonl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, m...)
	}
	if len(inputs) == 0 {
		t.Fatal("no inputs in testdata")
	}
	return inputs
}

func goldenName(input string) string {
	return strings.TrimSuffix(input, filepath.Ext(input)) + ".golden"
}

// TestGolden decodes every testdata input on its own and compares the
// result, or the error, with <case>.golden.
func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, input := range goldenInputs(t) {
		goldenPath := goldenName(input)
		if seen[goldenPath] {
			t.Fatalf("two inputs share %s", goldenPath)
		}
		seen[goldenPath] = true
		t.Run(filepath.Base(input), func(t *testing.T) {
			got := decodeForGolden(t, filepath.ToSlash(input))
			golden.Check(t, goldenPath, got)
		})
	}
	goldens, _ := filepath.Glob("testdata/*.golden")
	for _, g := range goldens {
		if !seen[g] {
			t.Errorf("%s has no input", g)
		}
	}
}

func decodeForGolden(t *testing.T, input string) []byte {
	f, err := os.Open(input)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var c Collector
	err = c.Add(input, f)
	view := goldenResult{}
	if err != nil {
		view.Error = err.Error()
	}
	res := c.Result()
	view.Files = res.Files
	for i := range res.Spans {
		view.Spans = append(view.Spans, viewSpan(&res.Spans[i]))
	}
	for i := range res.Invalid {
		view.Invalid = append(view.Invalid, viewSpan(&res.Invalid[i]))
	}
	for _, d := range res.Duplicates {
		view.Duplicates = append(view.Duplicates, [2]string{d.Dropped.String(), d.Kept.String()})
	}
	out, err := json.MarshalIndent(view, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

type goldenResult struct {
	Error      string       `json:"error,omitempty"`
	Files      []FileReport `json:"files"`
	Spans      []spanView   `json:"spans"`
	Invalid    []spanView   `json:"invalid,omitempty"`
	Duplicates [][2]string  `json:"duplicates,omitempty"`
}

type spanView struct {
	Ref      string          `json:"ref"`
	Trace    string          `json:"trace"`
	Span     string          `json:"span"`
	Parent   string          `json:"parent,omitempty"`
	Name     string          `json:"name"`
	Kind     string          `json:"kind"`
	StartNS  string          `json:"start_ns"`
	EndNS    string          `json:"end_ns"`
	Status   string          `json:"status"`
	State    string          `json:"trace_state,omitempty"`
	Attrs    json.RawMessage `json:"attributes"`
	Resource json.RawMessage `json:"resource"`
	Scope    string          `json:"scope"`
	Role     string          `json:"role"`
	Activity string          `json:"activity,omitempty"`
}

func viewSpan(s *model.Span) spanView {
	v := spanView{
		Ref: s.Ref.String(), Trace: s.TraceID, Span: s.SpanID, Parent: s.ParentSpanID,
		Name: s.Name, Kind: s.Kind.String(),
		StartNS: strconv.FormatInt(s.StartNS, 10), EndNS: strconv.FormatInt(s.EndNS, 10),
		Status: s.Status.Code.String(), State: s.TraceState,
		Attrs: query.AttributesJSON(nil, s.Attrs), Resource: query.AttributesJSON(nil, s.Resource.Attrs),
		Scope: s.Scope.Name, Role: s.Role(),
	}
	if s.Scope.Version != "" {
		v.Scope += "@" + s.Scope.Version
	}
	if s.Status.Message != "" {
		v.Status += ": " + s.Status.Message
	}
	if label, kind, ok := lifecycle.ActivityLabel(s.Name, s.Attrs); ok {
		v.Activity = label + " (" + kind + ")"
	}
	return v
}
