package dynamolog

import (
	"bytes"
	"os"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

func addSeeds(f *testing.F) {
	for _, input := range goldenInputs(f) {
		data, err := os.ReadFile(input)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// countLines counts lines as the scanners do: split on '\n' only, with a
// final line that lacks one.
func countLines(data []byte) int64 {
	n := int64(bytes.Count(data, []byte{'\n'}))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// FuzzParseFrontend checks that a frontend scan never panics, counts every
// line, and only reports bridges that a candidate line really carries.
func FuzzParseFrontend(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		log, err := Options{MaxLineBytes: 1 << 20}.ScanFrontend(bytes.NewReader(data), "fuzz")
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if log.Lines != countLines(data) || log.Bytes != int64(len(data)) || log.Candidates > log.Lines {
			t.Fatalf("counted %d lines, %d bytes, %d candidates", log.Lines, log.Bytes, log.Candidates)
		}
		if got := int64(len(log.Bridges)) + log.Undecodable + log.Unbridged; got > log.Candidates {
			t.Fatalf("%d outcomes for %d candidates", got, log.Candidates)
		}
		lines := bytes.Split(data, []byte{'\n'})
		for _, b := range log.Bridges {
			if b.ClientID == "" || !isUUID(b.ServerID) || b.Ref.Line < 1 || b.Ref.Line > log.Lines {
				t.Fatalf("bad bridge %+v", b)
			}
			if line := lines[b.Ref.Line-1]; !bytes.Contains(line, clientMarker) {
				t.Fatalf("bridge at line %d without %s: %q", b.Ref.Line, clientMarker, line)
			}
		}
	})
}

// FuzzParseWorker is FuzzParseFrontend for worker bindings and engine maps.
func FuzzParseWorker(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		log, err := Options{MaxLineBytes: 1 << 20}.ScanWorker(bytes.NewReader(data), "fuzz")
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if log.Lines != countLines(data) || log.Bytes != int64(len(data)) || log.Candidates > log.Lines {
			t.Fatalf("counted %d lines, %d bytes, %d candidates", log.Lines, log.Bytes, log.Candidates)
		}
		lines := bytes.Split(data, []byte{'\n'})
		for _, b := range log.Bindings {
			if !isUUID(b.ServerID) || b.Host == "" || b.Role == "" || b.Process == "" || b.Ref.Line < 1 || b.Ref.Line > log.Lines {
				t.Fatalf("bad binding %+v", b)
			}
			if !bytes.Contains(lines[b.Ref.Line-1], requestMarker) {
				t.Fatalf("binding at line %d without %s", b.Ref.Line, requestMarker)
			}
		}
		for _, m := range log.EngineMaps {
			if m.ServerID == "" || m.ClientID == "" || (m.DisaggID != nil && *m.DisaggID == "") {
				t.Fatalf("bad engine map %+v", m)
			}
			if !bytes.Contains(lines[m.Ref.Line-1], engineMarker) {
				t.Fatalf("engine map at line %d without the marker", m.Ref.Line)
			}
		}
	})
}
