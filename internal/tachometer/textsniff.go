package tachometer

import "bytes"

// notACapture is the error for a file that is neither Parquet nor Arrow:
// it says what the file looks like and what a capture is, since the usual
// mistake is handing --metrics a Prometheus text scrape or another text file.
func notACapture(head []byte) string {
	const want = "; a metric capture is a Tachometer leaf directory or a Parquet / Arrow IPC file it wrote"
	switch {
	case bytes.HasPrefix(head, []byte("# HELP")), bytes.HasPrefix(head, []byte("# TYPE")):
		return "this looks like a Prometheus text scrape (it starts with " + quoteHead(head) + "), not a capture" + want
	case printable(head):
		return "this is a text file (it starts with " + quoteHead(head) + "), not a Parquet file (no PAR1 magic), an Arrow IPC file (no ARROW1 magic) or an Arrow IPC stream" + want
	}
	return "not a Parquet file (no PAR1 magic), an Arrow IPC file (no ARROW1 magic) or an Arrow IPC stream: it starts " + quoteHead(head) + want
}

func quoteHead(head []byte) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, c := range head {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		}
	}
	b.WriteByte('"')
	return b.String()
}

func printable(head []byte) bool {
	for _, c := range head {
		if (c < 0x20 || c >= 0x7f) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return len(head) > 0
}
