package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/shard"
)

// Open reads the core shard of the report at path (its directory,
// index.html or manifest.json), verifying its content hash.
func Open(path string) (*catalog.Core, error) {
	dir := path
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	mb, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("%s is not a dsight report: %w", dir, err)
	}
	var m Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	if m.Generator != Generator {
		return nil, fmt.Errorf("%s is not a dsight report", dir)
	}
	if m.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("report format version %d is newer than this dsight reads (%d)", m.FormatVersion, FormatVersion)
	}
	core := filepath.Join(dir, filepath.FromSlash(m.Entry.Core.Path))
	script, err := os.ReadFile(core)
	if err != nil {
		return nil, fmt.Errorf("core shard: %w", err)
	}
	id, gz, err := shard.OpenEnvelope(script)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", core, err)
	}
	if id != m.Entry.Core.ID {
		return nil, fmt.Errorf("%s holds shard %s, manifest expects %s", core, id, m.Entry.Core.ID)
	}
	raw, err := shard.Decompress(gz)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", core, err)
	}
	s, err := shard.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", core, err)
	}
	return catalog.Open(s)
}
