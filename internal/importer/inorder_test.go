package importer

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsight/dsight/tools/gen/synth"
)

// TestInOrderUsesInOrder checks every item reaches use once, in order,
// whatever order the reads finish in.
func TestInOrderUsesInOrder(t *testing.T) {
	for _, ahead := range []int{0, 1, 2, 8} {
		var got []int
		err := inOrder(50, ahead, func(k int) (int, error) {
			time.Sleep(time.Duration((k*7)%5) * 100 * time.Microsecond)
			return k * k, nil
		}, func(k, v int) error {
			if v != k*k {
				return fmt.Errorf("item %d got %d", k, v)
			}
			got = append(got, k)
			return nil
		})
		if err != nil || len(got) != 50 {
			t.Fatalf("ahead %d: %v, %d items", ahead, err, len(got))
		}
		for k, v := range got {
			if k != v {
				t.Fatalf("ahead %d: item %d used at %d", ahead, v, k)
			}
		}
	}
}

// TestInOrderReadsAhead checks the reads overlap: each of the first two
// reads waits for the other to start, which a loop reading one item at a
// time never lets happen.
func TestInOrderReadsAhead(t *testing.T) {
	var started [2]chan struct{}
	for k := range started {
		started[k] = make(chan struct{})
	}
	err := inOrder(2, 2, func(k int) (int, error) {
		close(started[k])
		select {
		case <-started[1-k]:
			return k, nil
		case <-time.After(10 * time.Second):
			return 0, errors.New("the reads did not overlap")
		}
	}, func(int, int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
}

// TestInOrderFirstError checks the error returned is the first in item
// order (a later read failing sooner does not win), that no item after it
// is used, and that no read is still running when inOrder returns.
func TestInOrderFirstError(t *testing.T) {
	var running atomic.Int32
	var mu sync.Mutex
	used := 0
	err := inOrder(40, 4, func(k int) (int, error) {
		running.Add(1)
		defer running.Add(-1)
		switch k {
		case 9:
			time.Sleep(5 * time.Millisecond)
			return 0, errors.New("read 9")
		case 11:
			return 0, errors.New("read 11")
		}
		return k, nil
	}, func(k, _ int) error {
		mu.Lock()
		defer mu.Unlock()
		used++
		return nil
	})
	if err == nil || err.Error() != "read 9" {
		t.Fatalf("err = %v, want read 9", err)
	}
	if used != 9 {
		t.Errorf("%d items used, want 9", used)
	}
	if n := running.Load(); n != 0 {
		t.Errorf("%d reads still running after inOrder returned", n)
	}
	err = inOrder(40, 4, func(k int) (int, error) { return k, nil }, func(k, _ int) error {
		if k == 3 {
			return errors.New("use 3")
		}
		return nil
	})
	if err == nil || err.Error() != "use 3" {
		t.Fatalf("err = %v, want use 3", err)
	}
}

// BenchmarkTracedImport is the traced import's throughput over its input
// (3,000 requests, ~60,000 spans, ~72 MB): the OTel decode, the spill and
// the join passes, whose bucket reads and chunk deflates run on every
// core. Compare -cpu 1,2 for what the second core buys.
// go test -run X -bench TracedImport$ -cpu 1,2 ./internal/importer
func BenchmarkTracedImport(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "run")
	sum, err := synth.WriteRun(dir, synth.Config{
		Seed: 3, Requests: 3000, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(sum.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		res, err := Import(Options{Run: dir, SpillDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		if res.Dataset.StreamedEvidence == nil {
			b.Fatal("no evidence")
		}
	}
	b.ReportMetric(float64(sum.Spans), "spans")
}
