package synth

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/trtllm"
)

// TestTRTLLMFieldOrders: a small run with the trtllm source holds
// iteration records in all five field orders, every one of which the
// parser reads; at a larger scale there are proportionally more.
func TestTRTLLMFieldOrders(t *testing.T) {
	count := func(requests int) (map[string]int, int) {
		dir, _ := writeTestRun(t, Config{Seed: 3, Requests: requests, Sources: SourceAIPerf | SourceWorkers | SourceTRTLLM, Timezone: "UTC"})
		logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*.out"))
		formats, total := map[string]int{}, 0
		for _, path := range logs {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for n := 1; sc.Scan(); n++ {
				it, ok, err := trtllm.Decode(sc.Bytes())
				if err != nil {
					t.Errorf("%s:%d: %v", path, n, err)
				}
				if ok {
					formats[it.Obs.Format]++
					total++
				}
			}
			f.Close()
		}
		return formats, total
	}
	small, n := count(300)
	for _, want := range TRTLLMFieldOrders {
		if small[want] == 0 {
			t.Errorf("no %s records in %v", want, small)
		}
	}
	if len(small) != len(TRTLLMFieldOrders) {
		t.Errorf("formats %v", small)
	}
	_, big := count(1200)
	if big < 2*n {
		t.Errorf("%d records at 1200 requests, %d at 300: the records do not scale", big, n)
	}
}
