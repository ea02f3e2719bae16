package importer

import (
	"hash/fnv"
	"sync"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/model"
)

// lateTap is an EvidenceTap that reads each record on a goroutine of its
// own, behind the join, as the store's evidence rows do. It notes each
// record's span identities (views of the buffers the join reads spans
// into) when handed over, and checks them again when it reads the record:
// a buffer reused before the tap was done would change them.
// releasingTap is one that says when it is done (EvidenceReleaser).
type lateTap struct {
	in   chan lateItem
	done chan struct{}

	mu      sync.Mutex
	handed  int
	read    int
	waiting []lateWait
	changed int // records whose spans changed under the tap
}

type lateItem struct {
	ev  *model.RequestEvidence
	sum uint64
}

type lateWait struct {
	mark int
	f    func()
}

func spanSum(ev *model.RequestEvidence) uint64 {
	h := fnv.New64a()
	for _, s := range ev.Spans {
		h.Write([]byte(s.Name))
		h.Write([]byte(s.SpanID))
		h.Write([]byte(s.Ref.Path))
		for _, a := range s.Attrs {
			h.Write([]byte(a.Key))
		}
	}
	return h.Sum64()
}

func (t *lateTap) BeginEvidence(int64, []model.Source) {
	t.in, t.done = make(chan lateItem, 512), make(chan struct{})
	go func() {
		defer close(t.done)
		for it := range t.in {
			time.Sleep(20 * time.Microsecond) // behind the join
			t.mu.Lock()
			if spanSum(it.ev) != it.sum {
				t.changed++
			}
			t.read++
			var ready []func()
			for len(t.waiting) > 0 && t.waiting[0].mark <= t.read {
				ready = append(ready, t.waiting[0].f)
				t.waiting = t.waiting[1:]
			}
			t.mu.Unlock()
			for _, f := range ready {
				f()
			}
		}
	}()
}

func (t *lateTap) Evidence(_, _ int, ev *model.RequestEvidence) {
	t.mu.Lock()
	t.handed++
	t.mu.Unlock()
	t.in <- lateItem{ev, spanSum(ev)}
}

func (t *lateTap) EndEvidence() {
	close(t.in)
	<-t.done
}

// releasingTap is lateTap saying when it is done with the records.
type releasingTap struct{ lateTap }

func (t *releasingTap) Then(f func()) {
	t.mu.Lock()
	if t.read >= t.handed {
		t.mu.Unlock()
		f()
		return
	}
	t.waiting = append(t.waiting, lateWait{t.handed, f})
	t.mu.Unlock()
}

// importBuffers imports dir with tap and gives how many finish buffers
// the join made.
func importBuffers(t *testing.T, dir string, tap EvidenceTap) int64 {
	t.Helper()
	before := finishBuffersMade.Load()
	if _, err := Import(Options{Run: dir, SpillDir: t.TempDir(), EvidenceTap: tap}); err != nil {
		t.Fatal(err)
	}
	return finishBuffersMade.Load() - before
}

// With a tap that says when it is done with the records (the store's
// evidence rows), the join's finish pass reads spans into the buffers of
// records the tap and the chunks are done with, as it does with no tap,
// and never into one the tap still reads; a tap that cannot say so has
// each range read into a new buffer.
func TestFinishBuffersComeBackFromAReleasingTap(t *testing.T) {
	dir := generatedTracedRun(t, 3000)
	none := importBuffers(t, dir, nil)
	holding := &lateTap{}
	held := importBuffers(t, dir, holding)
	releasing := &releasingTap{}
	released := importBuffers(t, dir, releasing)
	for name, tap := range map[string]*lateTap{"holding": holding, "releasing": &releasing.lateTap} {
		if tap.handed == 0 || tap.read != tap.handed {
			t.Fatalf("%s tap: %d records handed, %d read", name, tap.handed, tap.read)
		}
		if tap.changed != 0 {
			t.Errorf("%s tap: %d of %d records changed before the tap read them", name, tap.changed, tap.handed)
		}
	}
	t.Logf("finish buffers made: %d with no tap, %d with a holding tap, %d with a releasing one", none, held, released)
	if held < 8 {
		t.Fatalf("the join finished %d ranges: too few to tell a pass that recycles", held)
	}
	if released*2 > held {
		t.Fatalf("with a releasing tap the join made %d finish buffers (%d with no tap, %d with a holding one): they were not reused", released, none, held)
	}
}
