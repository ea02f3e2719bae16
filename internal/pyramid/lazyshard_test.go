//go:build !js

package pyramid

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/shard"
)

// A lazily opened shard holds no chunk until asked; each fill decodes only
// the chunks named, into a new pyramid, leaving the one before untouched;
// what a walk then answers is what the whole shard answers.
func TestLazyShardDecodesOnlyTheChunksFilled(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	in := genSeries(rng, 20000)
	for k := range in {
		in[k].t = int64(k) * 1e6 // no conflicting settings: they are decoded whole
	}
	whole := build(t, in, Options{Temporal: Sample, ChunkRows: 300})
	raw, err := whole.EncodeShard()
	if err != nil {
		t.Fatal(err)
	}
	p, lazy, err := OpenShardLazy(raw)
	if err != nil || lazy == nil {
		t.Fatalf("lazy %v, %v", lazy, err)
	}
	if n := len(p.Unloaded()); n != p.ChunkCount() || n < 60 {
		t.Fatalf("%d of %d chunks unloaded after the open", n, p.ChunkCount())
	}
	from, to := int64(5000e6), int64(5100e6)
	if _, _, err := p.Stats(from, to); !errors.As(err, new(*IncompleteError)) {
		t.Fatalf("stats over no chunk: %v", err)
	}
	plan := p.PlanStats(from, to)
	q, all, err := lazy.FillChunks(p, plan)
	if err != nil || all {
		t.Fatalf("fill: all %v, %v", all, err)
	}
	if len(p.Unloaded()) != p.ChunkCount() {
		t.Fatal("a fill changed the pyramid it was given")
	}
	if got := q.ChunkCount() - len(q.Unloaded()); got != len(plan) || got > q.ChunkCount()/4 {
		t.Fatalf("%d chunks decoded for a plan of %d (of %d)", got, len(plan), q.ChunkCount())
	}
	for range 50 {
		a, b := randomRange(rng, bruteRows(in, Sample))
		for round := 0; ; round++ {
			got, _, err := q.Stats(a, b)
			var miss *IncompleteError
			if errors.As(err, &miss) && round < 10 {
				if q, _, err = lazy.FillChunks(q, miss.Chunks); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := whole.Stats(a, b)
			if got != want {
				t.Fatalf("stats %d..%d: %+v, whole %+v", a, b, got, want)
			}
			break
		}
	}
	full, all, err := lazy.FillChunks(q, q.Unloaded())
	if err != nil || !all || len(full.Unloaded()) != 0 {
		t.Fatalf("fill all: all %v, %d left, %v", all, len(full.Unloaded()), err)
	}
	if _, all, _ := lazy.FillChunks(full, nil); !all {
		t.Fatal("a full pyramid filled with nothing is not complete")
	}
}

// A shard of a single chunk, or with conflicting settings (whose check
// reads every exact chunk), opens whole; a damaged one is refused at once.
func TestLazyShardOpensWholeOrRefuses(t *testing.T) {
	small := build(t, []input{{t: 1, v: 1}, {t: 2, v: 2}}, Options{Temporal: Sample})
	var conflicting []input
	for k := range 3000 {
		conflicting = append(conflicting, input{t: int64(k), v: float64(k % 5)})
		if k%400 == 7 {
			conflicting = append(conflicting, input{t: int64(k), v: -1})
		}
	}
	setting := build(t, conflicting, Options{Temporal: Setting, ChunkRows: 200})
	if len(setting.Conflicts()) == 0 {
		t.Fatal("the setting has no conflicts")
	}
	for name, p := range map[string]*Pyramid{"single chunk": small, "conflicts": setting} {
		raw, err := p.EncodeShard()
		if err != nil {
			t.Fatal(err)
		}
		q, lazy, err := OpenShardLazy(raw)
		if err != nil || lazy != nil || len(q.Unloaded()) != 0 {
			t.Errorf("%s: lazy %v, %d unloaded, %v", name, lazy, len(q.Unloaded()), err)
		}
		if _, _, err := OpenShardLazy(raw[:len(raw)-1]); err == nil {
			t.Errorf("%s: a truncated shard opened", name)
		}
		raw[len(raw)/2] ^= 0x40
		if _, _, err := OpenShardLazy(raw); err == nil {
			t.Errorf("%s: a damaged shard opened", name)
		}
	}
}

// A shard opened table by table reads its header and index at the open
// and each chunk's table when filled, never another; the tables must be
// the ones their place names.
func TestShardOpenedByTablesReadsOnlyThoseFilled(t *testing.T) {
	var in []input
	for k := range 9000 {
		in = append(in, input{t: int64(k) * 1e6, v: float64(k % 17)})
	}
	whole := build(t, in, Options{Temporal: Sample, ChunkRows: 500})
	raw, err := whole.EncodeShard()
	if err != nil {
		t.Fatal(err)
	}
	spans, err := shard.FrameSpans(raw)
	if err != nil {
		t.Fatal(err)
	}
	var read []int
	table := func(k int) ([]byte, error) {
		read = append(read, k)
		s := spans[k+1]
		return raw[s.Start:s.End], nil
	}
	p, lazy, err := OpenShardFrames(raw[:spans[0].End], len(raw), table)
	if err != nil || lazy == nil {
		t.Fatalf("lazy %v, %v", lazy, err)
	}
	if !slices.Equal(read, []int{0, 1}) {
		t.Fatalf("the open read tables %v, want the header and the index", read)
	}
	read = nil
	q, _, err := lazy.FillChunks(p, []int{3, 1, 3})
	if err != nil || !slices.Equal(read, []int{5, 3}) || !q.Loaded(1) || !q.Loaded(3) || q.Loaded(2) {
		t.Fatalf("filling chunks 3 and 1 read tables %v: %v", read, err)
	}
	// A table out of its place is refused when read.
	swapped := func(k int) ([]byte, error) {
		switch k {
		case 4:
			k = 5
		case 5:
			k = 4
		}
		return table(k)
	}
	p2, lazy2, err := OpenShardFrames(raw[:spans[0].End], len(raw), swapped)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := lazy2.FillChunks(p2, []int{2}); !errors.Is(err, ErrLayout) {
		t.Fatalf("chunk 2 read from chunk 3's table: %v", err)
	}
}
