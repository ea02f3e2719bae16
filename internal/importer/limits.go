package importer

import (
	"fmt"
	"unicode/utf8"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// truncatedLabel ends a value cut to the catalog's bound, so that nobody
// takes the kept prefix for the recorded value.
const truncatedLabel = "…[truncated: %d bytes recorded; dsight keeps %d]"

// truncateOversized cuts every span, resource and scope attribute value
// longer than catalog.MaxAttrValueBytes (writers and readers share that
// bound) to catalog.AttrValueKeepBytes plus a label, counts them
// (truncated_attribute_values) and names the first span's file:line in a
// warning.
func truncateOversized(d *model.Dataset, spans []model.Span) {
	n, first := 0, ""
	seen := map[*model.Attributes]bool{}
	cut := func(a *model.Attributes, ref model.SpanRef) {
		if a == nil || seen[a] {
			return
		}
		seen[a] = true
		if k := truncateAttrs(*a); k > 0 {
			if n == 0 {
				first = fmt.Sprintf("%s:%d", ref.Path, ref.Line)
			}
			n += k
		}
	}
	for i := range spans {
		s := &spans[i]
		cut(&s.Attrs, s.Ref)
		if s.Resource != nil {
			cut(&s.Resource.Attrs, s.Ref)
		}
		if s.Scope != nil {
			cut(&s.Scope.Attrs, s.Ref)
		}
	}
	reportTruncated(d, n, first)
}

// reportTruncated counts n cut attribute values and warns, naming the
// first span's file:line.
func reportTruncated(d *model.Dataset, n int, first string) {
	if n == 0 {
		return
	}
	d.Audit["truncated_attribute_values"] += int64(n)
	d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf("%d OTel attribute value(s) are longer than the %d bytes a report can hold; each keeps its first %d bytes, labelled as truncated (first: %s)", n, catalog.MaxAttrValueBytes, catalog.AttrValueKeepBytes, first))
}

// truncateAttrs cuts the oversized values of a, in place, and counts them.
// A value is written back only when it was cut: the spans read back from
// the spill are cut on every pass, and nearly every value is short.
func truncateAttrs(a model.Attributes) int {
	n := 0
	for i := range a {
		if v, k := truncateValue(&a[i].Value); k > 0 {
			a[i].Value = v
			n += k
		}
	}
	return n
}

// truncateValue returns *v cut, and how many values were cut (0: *v is
// returned unchanged).
func truncateValue(v *model.Value) (model.Value, int) {
	switch v.Kind() {
	case model.KindString:
		s, _ := v.Str()
		if len(s) > catalog.MaxAttrValueBytes {
			keep := catalog.AttrValueKeepBytes
			for keep > 0 && !utf8.RuneStart(s[keep]) {
				keep-- // cut on a character boundary
			}
			return model.StringValue(s[:keep] + fmt.Sprintf(truncatedLabel, len(s), keep)), 1
		}
	case model.KindBytes:
		if b, _ := v.Bytes(); len(b) > catalog.MaxAttrValueBytes {
			// Bytes stay bytes: the label would not be data of the value.
			return model.BytesValue(b[:catalog.AttrValueKeepBytes]), 1
		}
	case model.KindArray:
		vs, _ := v.Array()
		n := 0
		for i := range vs {
			if c, k := truncateValue(&vs[i]); k > 0 {
				vs[i] = c
				n += k
			}
		}
		if n > 0 {
			return model.ArrayValue(vs...), n
		}
	case model.KindKVList:
		kv, _ := v.KVList()
		return *v, truncateAttrs(kv)
	}
	return *v, 0
}
