package synth

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Summary describes a written run.
type Summary struct {
	Dir         string `json:"dir"`
	Seed        uint64 `json:"seed"`
	Concurrency int    `json:"concurrency"`
	Counts
	StartNS   int64   `json:"start_ns"`
	EndNS     int64   `json:"end_ns"`
	DurationS float64 `json:"duration_s"`
	Files     []File  `json:"files"`
	Bytes     int64   `json:"bytes"`
}

// File is one written source file.
type File struct {
	Path  string `json:"path"` // relative to Summary.Dir, slash-separated
	Kind  string `json:"kind"`
	Bytes int64  `json:"bytes"`
	Lines int    `json:"lines"`
}

// WriteRun plans the run c describes and writes every source file under
// dir, creating directories as needed. Each file is written to a temporary
// name and renamed into place, so an interrupted run leaves no half file
// under the name an importer discovers.
func WriteRun(dir string, c Config) (Summary, error) {
	c, err := c.Resolve()
	if err != nil {
		return Summary{}, err
	}
	if err := checkPathElem(c.Benchmark); err != nil {
		return Summary{}, fmt.Errorf("benchmark name: %w", err)
	}
	p, err := NewPlan(c)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{
		Dir:         dir,
		Seed:        c.Seed,
		Concurrency: c.Concurrency,
		Counts:      p.Counts(),
		StartNS:     p.OriginNS,
		EndNS:       p.EndNS(),
	}
	s.DurationS = float64(s.EndNS-s.StartNS) / 1e9

	sources := []struct {
		kind, rel string
		write     func(io.Writer, *Plan) (int64, int, error)
	}{
		{"aiperf", AIPerfPath(c.Benchmark), WriteAIPerf},
	}
	for _, src := range sources {
		f := File{Path: src.rel, Kind: src.kind}
		err := writeFile(filepath.Join(dir, filepath.FromSlash(src.rel)), func(w io.Writer) error {
			var err error
			f.Bytes, f.Lines, err = src.write(w, p)
			return err
		})
		if err != nil {
			return s, err
		}
		s.Files = append(s.Files, f)
		s.Bytes += f.Bytes
	}
	return s, nil
}

func writeFile(name string, write func(io.Writer) error) (err error) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// checkPathElem accepts a name usable as one directory component.
func checkPathElem(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("%q is not a directory name", name)
	case strings.ContainsAny(name, `/\`+"\x00"):
		return errors.New("must not contain path separators")
	}
	return nil
}
