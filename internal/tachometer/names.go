package tachometer

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Label is one inline label of a metric name, or one identity column of a
// capture row.
type Label struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

var (
	errUnterminatedLabels = errors.New("unterminated metric labels")
	errMalformedLabels    = errors.New("malformed metric labels")
	errUnterminatedEscape = errors.New("unterminated label escape")
	errUnterminatedQuote  = errors.New("unterminated quoted label")
	errDuplicateLabel     = errors.New("duplicate label")
	errMissingComma       = errors.New("missing comma in metric labels")
)

// ParseMetricName splits a captured metric name such as
// `name{k="v",k2=v2}` into its family name and inline labels, in the order
// written.
//
// Quoted values understand the Prometheus escapes \n, \" and \\; any other
// escape is kept literally (backslash included). Unquoted values, which
// Tachometer's filters produce (`cpu_time_total{mode=idle}`), end at the next
// comma and are trimmed. A name without `{` has no labels. The name part may be
// empty; callers decide whether that is acceptable.
//
// Duplicate keys, an unterminated brace, quote or escape, a missing `key=`
// or a missing comma between labels are errors, because accepting them would
// silently merge or split series identities.
func ParseMetricName(encoded string) (string, []Label, error) {
	brace := strings.IndexByte(encoded, '{')
	if brace < 0 {
		return encoded, nil, nil
	}
	if !strings.HasSuffix(encoded, "}") {
		return "", nil, fmt.Errorf("%w: %q", errUnterminatedLabels, encoded)
	}
	body := encoded[brace+1 : len(encoded)-1]
	var labels []Label
	pos := 0
	for pos < len(body) {
		key, next, ok := labelKey(body, pos)
		if !ok {
			return "", nil, fmt.Errorf("%w: %q", errMalformedLabels, encoded)
		}
		pos = next
		var value string
		if pos < len(body) && body[pos] == '"' {
			var err error
			value, pos, err = quotedValue(body, pos+1)
			if err != nil {
				return "", nil, fmt.Errorf("%w: %q", err, encoded)
			}
		} else {
			end := strings.IndexByte(body[pos:], ',')
			if end < 0 {
				end = len(body)
			} else {
				end += pos
			}
			value = strings.TrimFunc(body[pos:end], isSpace)
			pos = end
		}
		for _, l := range labels {
			if l.Key == key {
				return "", nil, fmt.Errorf("%w %q: %q", errDuplicateLabel, key, encoded)
			}
		}
		labels = append(labels, Label{Key: key, Value: value})
		pos = skipSpace(body, pos)
		if pos < len(body) {
			if body[pos] != ',' {
				return "", nil, fmt.Errorf("%w: %q", errMissingComma, encoded)
			}
			pos++
		}
	}
	return encoded[:brace], labels, nil
}

// labelKey reads `\s*key\s*=\s*` at pos, where a key is one or more
// characters other than whitespace, '=' and ','.
func labelKey(body string, pos int) (key string, next int, ok bool) {
	pos = skipSpace(body, pos)
	start := pos
	for pos < len(body) {
		r, size := utf8.DecodeRuneInString(body[pos:])
		if r == '=' || r == ',' || isSpace(r) {
			break
		}
		pos += size
	}
	if pos == start {
		return "", 0, false
	}
	key = body[start:pos]
	pos = skipSpace(body, pos)
	if pos >= len(body) || body[pos] != '=' {
		return "", 0, false
	}
	return key, skipSpace(body, pos+1), true
}

// quotedValue reads a quoted value whose opening quote precedes pos and
// returns the position after its closing quote.
func quotedValue(body string, pos int) (string, int, error) {
	var b strings.Builder
	for pos < len(body) {
		c := body[pos]
		pos++
		switch c {
		case '"':
			return b.String(), pos, nil
		case '\\':
			if pos == len(body) {
				return "", 0, errUnterminatedEscape
			}
			e := body[pos]
			switch e {
			case 'n':
				b.WriteByte('\n')
				pos++
			case '"', '\\':
				b.WriteByte(e)
				pos++
			default:
				// Unknown escapes stay literal, including the backslash; the
				// escaped character is copied by the next iteration.
				b.WriteByte('\\')
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errUnterminatedQuote
}

func skipSpace(s string, pos int) int {
	for pos < len(s) {
		r, size := utf8.DecodeRuneInString(s[pos:])
		if !isSpace(r) {
			return pos
		}
		pos += size
	}
	return pos
}

// isSpace matches the whitespace the reference implementation's label grammar
// skips: Unicode white space plus the ASCII information separators 0x1c–0x1f.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// parseBound reads an inline `le` value. Infinities are valid bounds; NaN and
// anything that is not a decimal number are not.
func parseBound(s string) (float64, error) {
	t := strings.TrimFunc(s, isSpace)
	lower := strings.ToLower(t)
	if strings.Contains(lower, "0x") || strings.Contains(t, "_") {
		return 0, fmt.Errorf("invalid histogram bound %q", s)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		var numErr *strconv.NumError
		// ParseFloat reports out-of-range decimals as ±Inf with ErrRange,
		// which matches how the decimal reads as a float.
		if !(errors.As(err, &numErr) && errors.Is(numErr.Err, strconv.ErrRange)) {
			return 0, fmt.Errorf("invalid histogram bound %q", s)
		}
	}
	if math.IsNaN(v) {
		return 0, fmt.Errorf("invalid histogram bound %q", s)
	}
	return v, nil
}

// FormatBound renders a histogram bound the way the reference implementation
// labels buckets: "+Inf", "-Inf", or the shortest repr of the float64 with a
// trailing ".0" for integral values (1 → "1.0", 1e-05 stays "1e-05").
func FormatBound(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return pyFloatRepr(v)
}

// pyFloatRepr reproduces Python's repr(float): shortest round-trip digits,
// positional notation for decimal exponents in [-4, 16), scientific
// otherwise with at least two exponent digits.
func pyFloatRepr(v float64) string {
	sci := strconv.FormatFloat(v, 'e', -1, 64)
	_, expText, _ := strings.Cut(sci, "e")
	if exp, _ := strconv.Atoi(expText); exp < -4 || exp >= 16 {
		return sci // Go already writes "1e-05" / "1e+16" like Python
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
