package metrics

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/shard"
)

// Two different batch limits logged for one scope at one time both reach
// the series' summary, each with its log line: the import keeps every
// point of a setting and the summary keeps conflicting ones apart.
func TestConflictingSettingsSurviveImport(t *testing.T) {
	f := synthRun(t)
	var path string
	var line int
	for _, p := range f.workers {
		if !strings.Contains(p, "decode") {
			continue
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(raw), "\n")
		for i, l := range lines {
			if strings.Contains(l, "Scheduler config:") && strings.Contains(l, "max_batch_size=64 ") {
				lines = append(lines[:i+1], append([]string{strings.Replace(l, "max_batch_size=64 ", "max_batch_size=48 ", 1)}, lines[i+1:]...)...)
				path, line = p, i+1
				break
			}
		}
		if path != "" {
			if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if path == "" {
		t.Fatal("no decode worker log with a max_batch_size=64 configuration")
	}
	r, reg := f.read(t, time.UTC)
	src := -1
	for i, p := range reg.paths {
		if p == path || strings.HasSuffix(path, p) {
			src = i
		}
	}
	found := false
	for _, s := range r.Series {
		if s.Name != "log_tokenspeed_decode_request_limit" {
			continue
		}
		gz, err := s.Summary.Payload.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := shard.Decompress(gz)
		if err != nil {
			t.Fatal(err)
		}
		p, err := pyramid.DecodeShard(raw)
		if err != nil {
			t.Fatal(err)
		}
		c := p.Conflicts()
		if len(c) == 0 {
			continue
		}
		if len(c) != 2 || c[0].V != 64 || c[1].V != 48 || c[0].T != c[1].T || c[0].Line != int64(line) || c[1].Line != int64(line+1) || (src >= 0 && c[0].Source != int64(src)) {
			t.Fatalf("%s: conflicts %+v, want 64 at line %d and 48 at line %d of source %d", s.Label, c, line, line+1, src)
		}
		rows, err := p.RowsAt(c[0].T)
		if err != nil || len(rows) != 2 {
			t.Fatalf("rows at the conflict: %+v (%v)", rows, err)
		}
		found = true
	}
	if !found {
		t.Fatal("no limit series kept the conflicting configuration")
	}
}
