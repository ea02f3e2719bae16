package tokenspeed

import (
	"bytes"
	"fmt"

	"github.com/dsight/dsight/internal/logmetric"
)

// invalidFields says why a batch snapshot's #running-req or page triple
// was not kept although the line records it (a NaN, negative, fractional
// or overflowing count, a "5/3" triple), or "" when nothing was dropped:
// the log-metric reader counts such lines with their first file:line.
func invalidFields(msg []byte) string {
	decode, fields, ok := batchFields(msg)
	if !ok {
		return ""
	}
	if decode && bytes.Contains(fields, []byte("#running-req:")) {
		if _, ok := countAfter(fields, "#running-req:"); !ok {
			return "#running-req has a value that fails validation"
		}
	}
	if i := bytes.Index(fields, []byte("#pages(active/cached/total):")); i >= 0 {
		if _, _, ok := pages(fields); !ok {
			raw, _, _ := bytes.Cut(bytes.TrimLeft(fields[i+len("#pages(active/cached/total):"):], " "), []byte(","))
			return fmt.Sprintf("#pages(active/cached/total) is not three valid counts (%.40q)", raw)
		}
	}
	return ""
}

// unreadableStamp returns the timestamp text of a line that carries a
// TokenSpeed batch snapshot under an "ATTN TP RANK" prefix whose timestamp
// does not parse (a bad millisecond field), or "".
func unreadableStamp(line []byte) string {
	r := bytes.Index(line, []byte("ATTN TP RANK "))
	if r < 0 {
		return ""
	}
	if _, _, ok := batchFields(line[r:]); !ok {
		return ""
	}
	a := bytes.LastIndexByte(line[:r], '[')
	if a < 0 {
		return ""
	}
	tok := bytes.TrimSpace(line[a+1 : r])
	if len(tok) < len("2006-01-02") || !isDigit(tok[0]) || !isDigit(tok[3]) || tok[4] != '-' {
		return ""
	}
	for _, sep := range []byte{',', '.'} { // a period is another logger's stamp, not a damaged one
		if _, used := logmetric.ParseStamp(tok, sep); used == len(tok) {
			return "" // the stamp reads; the prefix fails for another reason
		}
	}
	return string(tok)
}
