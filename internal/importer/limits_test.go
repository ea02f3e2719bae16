package importer

import (
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// A value over the catalog's bound keeps its first AttrValueKeepBytes (cut
// on a character boundary) and a label; nested values are cut too; values
// within the bound are untouched; the warning names the first span.
func TestOversizedAttributeValuesAreCut(t *testing.T) {
	huge := "é" + strings.Repeat("x", catalog.MaxAttrValueBytes) // the keep bound falls inside no character here
	odd := strings.Repeat("x", catalog.AttrValueKeepBytes-1) + "é" + strings.Repeat("y", catalog.MaxAttrValueBytes)
	spans := []model.Span{
		{Name: "small", Attrs: model.Attributes{{Key: "k", Value: model.StringValue("v")}}, Ref: model.SpanRef{Path: "otel/traces.jsonl", Line: 3}},
		{Name: "big", Ref: model.SpanRef{Path: "otel/traces.jsonl", Line: 7}, Attrs: model.Attributes{
			{Key: "a", Value: model.StringValue(huge)},
			{Key: "b", Value: model.KVListValue(model.Attr{Key: "c", Value: model.ArrayValue(model.StringValue(odd))})},
		}},
	}
	d := &model.Dataset{Audit: model.Audit{}}
	truncateOversized(d, spans)
	if v, _ := spans[0].Attrs[0].Value.Str(); v != "v" {
		t.Fatalf("small value changed: %q", v)
	}
	a, _ := spans[1].Attrs[0].Value.Str()
	if !strings.HasSuffix(a, "…[truncated: 67108866 bytes recorded; dsight keeps 1048576]") || len(a) > catalog.AttrValueKeepBytes+100 {
		t.Fatalf("cut value: %d bytes, ends %q", len(a), a[max(0, len(a)-80):])
	}
	kv, _ := spans[1].Attrs[1].Value.KVList()
	arr, _ := kv[0].Value.Array()
	c, _ := arr[0].Str()
	if !strings.HasPrefix(c[catalog.AttrValueKeepBytes-1:], "…[truncated") {
		t.Fatalf("nested value not cut before the split character: %q", c[catalog.AttrValueKeepBytes-4:catalog.AttrValueKeepBytes+20])
	}
	if d.Audit["truncated_attribute_values"] != 2 || len(d.Meta.Warnings) != 1 || !strings.HasSuffix(d.Meta.Warnings[0], "(first: otel/traces.jsonl:7)") {
		t.Fatalf("audit %v, warnings %q", d.Audit, d.Meta.Warnings)
	}
}
