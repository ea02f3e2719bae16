package agentperf

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/jsonscan"
)

// ManifestName is the phase manifest's file name beside the export.
const ManifestName = "phase_manifest.jsonl"

// Companions lists the evidence files beside an AgentPerf export: the phase
// manifest ("" when absent) and, only for an export named requests.jsonl,
// the phase-analysis files in name order.
func Companions(exportPath string) (manifest string, analyses []string, err error) {
	dir := filepath.Dir(exportPath)
	candidate := filepath.Join(dir, ManifestName)
	switch st, err := os.Stat(candidate); {
	case err == nil && st.Mode().IsRegular():
		manifest = candidate
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", nil, err
	}
	if filepath.Base(exportPath) != "requests.jsonl" {
		return manifest, nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, err
	}
	for _, e := range entries {
		if _, ok := AnalysisPhase(e.Name()); ok && e.Type().IsRegular() {
			analyses = append(analyses, filepath.Join(dir, e.Name()))
		}
	}
	return manifest, analyses, nil
}

// AnalysisPhase reports whether name is a phase-analysis file (it matches
// *__phase*__traj*.jsonl) and returns the phase its __phase<N>__ part
// records. Names matching the pattern without a numeric phase are not
// analysis files.
func AnalysisPhase(name string) (int64, bool) {
	if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".jsonl") {
		return 0, false
	}
	stem := strings.TrimSuffix(name, ".jsonl")
	i := strings.Index(stem, "__phase")
	if i < 0 || !strings.Contains(stem[i+len("__phase"):], "__traj") {
		return 0, false
	}
	for rest := name; ; {
		j := strings.Index(rest, "__phase")
		if j < 0 {
			return 0, false
		}
		digits := rest[j+len("__phase"):]
		n := 0
		for n < len(digits) && digits[n] >= '0' && digits[n] <= '9' {
			n++
		}
		if n > 0 && strings.HasPrefix(digits[n:], "__") {
			if phase, err := strconv.ParseInt(digits[:n], 10, 64); err == nil {
				return phase, true
			}
		}
		rest = rest[j+1:]
	}
}

// IsNativeRow reports whether one export line is a native AgentPerf record:
// a JSON object with start_time and without metadata.
func IsNativeRow(line []byte) bool {
	s := jsonscan.Scanner{Dialect: jsonscan.Python}
	s.Reset(line)
	var start, metadata bool
	err := s.Object(func(key []byte) error {
		switch string(key) {
		case "start_time":
			start = true
		case "metadata":
			metadata = true
		}
		return nil
	})
	return err == nil && start && !metadata
}
