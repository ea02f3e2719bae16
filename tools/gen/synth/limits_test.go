package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/sourcename"
	"github.com/dsight/dsight/internal/tokenspeed"
)

// TestTokenSpeedLimits reads the TokenSpeed decode logs of several seeds and
// mixes back with the TokenSpeed adapter: two decode workers log capacity
// snapshots; the first raises its batch limit mid-run and the second logs a
// configuration without one, each with decode samples on both sides.
func TestTokenSpeedLimits(t *testing.T) {
	mixes := map[string]Sources{
		"tokenspeed":        SourceAIPerf | SourceWorkers | SourceTokenSpeed,
		"sglang+tokenspeed": DefaultSources | SourceTokenSpeed,
	}
	for _, name := range []string{"tokenspeed", "sglang+tokenspeed"} {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/seed%d", name, seed), func(t *testing.T) {
				c := Config{Seed: seed, Requests: 120, Sources: mixes[name], Timezone: "America/New_York"}
				dir, s := writeTestRun(t, c)
				loc, _ := time.LoadLocation(c.Timezone)
				var limits [][]string
				for _, f := range s.Files {
					id, ok := sourcename.Parse(filepath.Base(f.Path))
					if f.Kind != KindWorker || !ok || id.Role != "decode" {
						continue
					}
					r, err := os.Open(filepath.Join(dir, f.Path))
					if err != nil {
						t.Fatal(err)
					}
					res, err := logmetric.Read(r, logmetric.SourceInfo{Path: f.Path, Worker: id.Worker, Host: id.Host, Role: id.Role}, loc, tokenspeed.Generator{})
					r.Close()
					if err != nil {
						t.Fatal(err)
					}
					if lim := checkCapacityFile(t, f.Path, res); lim != nil {
						limits = append(limits, lim)
					}
				}
				want := [][]string{{"64", "128"}, {"64", "null"}}
				if !slices.EqualFunc(limits, want, slices.Equal) {
					t.Fatalf("decode batch limits per TokenSpeed decode worker %v, want %v", limits, want)
				}
			})
		}
	}
}

// checkCapacityFile checks one decode log's capacity series and returns
// its logged limits in order ("null" for an invalid one), or nil when the
// file has no TokenSpeed lines.
func checkCapacityFile(t *testing.T, path string, res *logmetric.Result) []string {
	t.Helper()
	byName := map[string]*logmetric.Series{}
	for i := range res.Series {
		byName[res.Series[i].Definition.Name] = &res.Series[i]
	}
	active, limit := byName[tokenspeed.ActiveDecodeRequests], byName[tokenspeed.DecodeRequestLimit]
	if active == nil && limit == nil {
		return nil
	}
	if active == nil || limit == nil || byName[tokenspeed.ActiveKVPages] == nil || byName[tokenspeed.KVPoolPages] == nil {
		t.Fatalf("%s: series %v, want both capacity families and their references", path, len(res.Series))
	}
	for _, s := range []*logmetric.Series{active, byName[tokenspeed.ActiveKVPages]} {
		if s.Reference == nil || s.Reference.Series < 0 {
			t.Fatalf("%s: %s has no reference series", path, s.Definition.Name)
		}
	}
	var out []string
	for _, p := range limit.Points {
		if p.Null {
			out = append(out, "null")
		} else {
			out = append(out, fmt.Sprint(p.Value))
		}
	}
	if len(limit.Points) == 2 {
		change := limit.Points[1].TimeNS
		before, after := 0, 0
		for _, p := range active.Points {
			if p.TimeNS < change {
				before++
			} else if p.TimeNS > change {
				after++
			} else {
				t.Fatalf("%s:%d: a decode sample shares the reconfiguration's timestamp", path, p.Line)
			}
		}
		if before == 0 || after == 0 {
			t.Fatalf("%s: %d decode samples before the reconfiguration, %d after", path, before, after)
		}
	}
	return out
}
