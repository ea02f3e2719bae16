package tokenspeed

import (
	"bytes"
	"github.com/dsight/dsight/internal/logmetric/logmetrictest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGolden(t *testing.T) { logmetrictest.Golden(t, Generator{}) }

func fixtures(t testing.TB) []string { return logmetrictest.Fixtures(t) }

// TestOtherEnginesIgnored: SGLang and TRT-LLM logs hold nothing for this
// generator; every line must decode to nothing, without error.
func TestOtherEnginesIgnored(t *testing.T) {
	for _, path := range fixtures(t) {
		base := filepath.Base(path)
		if !strings.HasPrefix(base, "sglang_") && !strings.HasPrefix(base, "trtllm_") {
			continue
		}
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(in, []byte("\n")) {
			if obs, ok, err := (Generator{}).Decode(line); ok || err != nil {
				t.Errorf("%s:%d: decoded %+v, %v", path, i+1, obs, err)
			}
		}
	}
}

// firstDiff describes the first line where got and want differ.
