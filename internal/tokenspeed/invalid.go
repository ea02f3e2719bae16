package tokenspeed

import (
	"bytes"
	"fmt"

	"github.com/dsight/dsight/internal/logmetric"
)

// invalidFields says why a line's value that would become a metric was
// not kept although the line records it — a batch snapshot's #running-req
// (decode) or page triple, a configuration's max_batch_size — because it is
// NaN, negative, fractional or overflowing, or a "5/3" triple; "" when
// nothing was dropped. The log-metric reader counts such lines with their
// first file:line.
func invalidFields(msg []byte) string {
	if _, config, ok := bytes.Cut(msg, []byte("Scheduler config: ")); ok {
		if raw, found := maxBatchSizeText(config); found {
			if _, ok := logmetric.ParseCount(raw); !ok {
				return fmt.Sprintf("max_batch_size has a value that fails validation (%.40q)", raw)
			}
		}
		return ""
	}
	decode, fields, ok := batchFields(msg)
	if !ok {
		return ""
	}
	if decode {
		if why := invalidCount(fields, "#running-req:"); why != "" {
			return why
		}
	}
	return invalidPages(fields)
}

// invalidSnapshotFields is invalidFields for every field a batch snapshot
// converts (DecodeSnapshot), not only those that become metrics.
func invalidSnapshotFields(fields []byte) string {
	for _, label := range [...]string{"#running-req:", "#queue-req:", "#new-seq:", "#new-token:", "#cached-token:"} {
		if why := invalidCount(fields, label); why != "" {
			return why
		}
	}
	if why := invalidPages(fields); why != "" {
		return why
	}
	for _, label := range [...]string{"page ratio:", "gen throughput (token/s):", "avg_accept_len:", "accept_rate:"} {
		if bytes.Contains(fields, []byte(label)) {
			if _, ok := decimalAfter(fields, label); !ok {
				return fmt.Sprintf("%s has a value that fails validation (%.40q)", label[:len(label)-1], fieldText(fields, label))
			}
		}
	}
	return ""
}

func invalidCount(fields []byte, label string) string {
	if !bytes.Contains(fields, []byte(label)) {
		return ""
	}
	if _, ok := countAfter(fields, label); ok {
		return ""
	}
	return label[:len(label)-1] + " has a value that fails validation"
}

func invalidPages(fields []byte) string {
	const label = "#pages(active/cached/total):"
	if !bytes.Contains(fields, []byte(label)) {
		return ""
	}
	if _, _, ok := pages(fields); ok {
		return ""
	}
	return fmt.Sprintf("#pages(active/cached/total) is not three valid counts (%.40q)", fieldText(fields, label))
}

// fieldText is the logged text after label up to the next comma.
func fieldText(fields []byte, label string) []byte {
	i := bytes.Index(fields, []byte(label))
	raw, _, _ := bytes.Cut(bytes.TrimLeft(fields[i+len(label):], " \t"), []byte(","))
	return raw
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
