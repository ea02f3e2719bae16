package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Open reads the core shard of the report at path (its directory,
// index.html or manifest.json), verifying its content hash.
func Open(path string) (*catalog.Core, error) {
	dir, m, c, err := openCore(path)
	if err != nil || m.Entry.Evidence == nil {
		return c, err
	}
	if err := attachEvidence(dir, m.Entry.Evidence, c.AttachEvidence); err != nil {
		return nil, err
	}
	return c, nil
}

// openCore reads the manifest and the core shard of the report at path.
func openCore(path string) (string, Manifest, *catalog.Core, error) { return openCoreTables(path, nil) }

// openCoreTables is openCore decoding none of the core tables skipped
// names (nil: every table).
func openCoreTables(path string, skipped func(table string) bool) (string, Manifest, *catalog.Core, error) {
	return openCoreColumns(path, skipped, nil)
}

// openManifest reads the manifest of the report at path and checks that
// this dsight reads its format.
func openManifest(path string) (string, Manifest, error) {
	var m Manifest
	dir := path
	if st, err := os.Stat(path); err != nil {
		return "", m, err
	} else if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	mb, err := readBounded(filepath.Join(dir, ManifestFile), maxManifestBytes)
	if err != nil {
		return "", m, fmt.Errorf("%s is not a dsight report: %w", dir, err)
	}
	// Only what opening needs: the summary, sources and file list are most
	// of the manifest's bytes (and, decoded, most of its allocations).
	var head struct {
		Generator     string `json:"generator"`
		FormatVersion int    `json:"format_version"`
		Entry         Entry  `json:"entry"`
	}
	if err := json.Unmarshal(mb, &head); err != nil {
		return "", m, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	m.Generator, m.FormatVersion, m.Entry = head.Generator, head.FormatVersion, head.Entry
	if m.Generator != Generator {
		return "", m, fmt.Errorf("%s is not a dsight report", dir)
	}
	if m.FormatVersion > FormatVersion {
		return "", m, fmt.Errorf("report format version %d is newer than this dsight reads (%d)", m.FormatVersion, FormatVersion)
	}
	if m.FormatVersion < FormatVersion {
		return "", m, fmt.Errorf("report format version %d is older than this dsight reads (%d): rebuild the report with this dsight", m.FormatVersion, FormatVersion)
	}
	return dir, m, nil
}

// openCoreColumns is openCoreTables decoding none of the columns
// skippedColumns names either (nil: every column).
func openCoreColumns(path string, skipped func(table string) bool, skippedColumns shard.SkipColumn) (string, Manifest, *catalog.Core, error) {
	dir, m, err := openManifest(path)
	if err != nil {
		return "", m, nil, err
	}
	var keep func(string) bool
	if skipped != nil {
		keep = func(table string) bool { return !skipped(table) }
	}
	var s *shard.Shard
	if m.Entry.Core.Encoding == EncodingFrames {
		if keep == nil {
			keep = func(string) bool { return true }
		}
		s, err = readFramedColumns(dir, m.Entry.Core, keep, skippedColumns)
	} else {
		var raw []byte
		if raw, err = readShard(dir, m.Entry.Core); err == nil {
			s, err = shard.DecodeTablesSkipping(raw, keep, skippedColumns)
		}
	}
	if err != nil {
		return "", m, nil, fmt.Errorf("core shard: %w", err)
	}
	c, err := catalog.OpenColumns(s, skipped, skippedColumns)
	return dir, m, c, err
}

// readShard reassembles a shard's payload from its parts, checking each
// part's script names its manifest id, the whole payload's hash (which
// covers every part's bytes; a damaged part is named) and its decoded
// size.
func readShard(dir string, sh model.Shard) ([]byte, error) {
	if len(sh.Parts) == 0 {
		return nil, errNoParts
	}
	if isPacked(sh) {
		return (&packReader{dir: dir}).readPackedShard(sh)
	}
	payload, err := readPayload(dir, sh)
	if err != nil {
		return nil, err
	}
	raw := payload
	switch sh.Encoding {
	case "":
		var err error
		if raw, err = shard.Decompress(payload); err != nil {
			return nil, err
		}
	case EncodingIdentity:
	case EncodingFrames:
		var err error
		if raw, err = joinFrames(sh, payload); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown shard encoding %q", sh.Encoding)
	}
	if len(raw) != sh.DecodedBytes {
		return nil, fmt.Errorf("decoded %d bytes, manifest expects %d", len(raw), sh.DecodedBytes)
	}
	return raw, nil
}

// readPayload is the stored payload of a shard that is not packed, its
// parts joined and checked as readShard says, not yet decoded.
func readPayload(dir string, sh model.Shard) ([]byte, error) {
	if len(sh.Parts) == 0 {
		return nil, errNoParts
	}
	if sh.Bytes < 0 || sh.Bytes > len(sh.Parts)*PartBytes {
		return nil, fmt.Errorf("shard declares %d bytes in %d parts of at most %d", sh.Bytes, len(sh.Parts), PartBytes)
	}
	payload := make([]byte, 0, sh.Bytes)
	for _, p := range sh.Parts {
		file, script, err := readPart(dir, p)
		if err != nil {
			return nil, err
		}
		if len(payload)+p.Bytes > sh.Bytes {
			return nil, fmt.Errorf("parts declare more than the shard's %d bytes", sh.Bytes)
		}
		// Each part decodes in place, after the ones before it. Its bytes
		// are checked by the whole payload's hash below, which covers
		// every one of them: hashing each part as well spent two SHA-256
		// passes on every byte (wholeDamage names a damaged part).
		start := len(payload)
		id, grown, err := shard.AppendOpenPartCovered(payload, script)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if id != p.ID {
			return nil, fmt.Errorf("%s: content hash mismatch: it holds part %s, manifest expects %s", file, id, p.ID)
		}
		if len(grown)-start != p.Bytes {
			return nil, fmt.Errorf("%s holds %d bytes, manifest declares %d", file, len(grown)-start, p.Bytes)
		}
		payload = grown
	}
	if id := shard.ID(payload); id != sh.ID {
		return nil, wholeDamage(dir, sh, payload, fmt.Errorf("content hash mismatch: parts assemble to %s, manifest expects %s", id, sh.ID))
	}
	return payload, nil
}

// wholeDamage is err, a payload refused by its hash, naming the first part
// file whose payload is not the one its id names, as when every part was
// hashed on its own; err as is when every part holds its id's bytes (the
// parts are another payload's, or the manifest's id is damaged).
func wholeDamage(dir string, sh model.Shard, payload []byte, err error) error {
	at := 0
	for _, p := range sh.Parts {
		if id := shard.ID(payload[at : at+p.Bytes]); id != p.ID {
			file, _ := partFile(dir, p)
			return fmt.Errorf("%s: content hash mismatch: it holds part %s, manifest expects %s", file, id, p.ID)
		}
		at += p.Bytes
	}
	return err
}
