package shard

import (
	"bytes"
	"errors"
	"fmt"
)

// A pack is one dense script holding the payloads of several small parts:
// the byte order mark once, then for each part the line Envelope16 writes
// after its mark,
//
//	BOM __dsightShard("<id1>",function(){/*<base 32768>*/});\n__dsightShard("<id2>",…);\n …
//
// A page opened from file:// pays a script load (~17 ms) per file, so
// neighbouring small shards (the Nsight range chunks, a few KB each) share
// one; each part keeps its own id, checked against its own payload, so a
// reader takes exactly the parts it asked for. A single dense envelope is
// a pack of one.

// Pack16 writes the parts gzs, named ids (ids[k] must be ID(gzs[k])), as
// one pack script. It panics on a malformed id, as Envelope16 does.
func Pack16(ids []string, gzs [][]byte) []byte {
	if len(ids) != len(gzs) || len(ids) == 0 {
		panic(fmt.Sprintf("shard.Pack16: %d ids for %d payloads", len(ids), len(gzs)))
	}
	n := len(bom16)
	for _, gz := range gzs {
		n += Envelope16Len(len(gz)) - len(bom16)
	}
	out := make([]byte, 0, n)
	out = append(out, bom16...)
	for k, gz := range gzs {
		// Envelope16's line after its mark, written in place.
		if len(ids[k]) != idLen || !isLowerHex(ids[k]) {
			panic(fmt.Sprintf("shard.Pack16: id %q is not %d lowercase hex digits", ids[k], idLen))
		}
		out = append(out, line16...)
		out = append(out, utf16le(ids[k])...)
		out = append(out, middle16...)
		out = AppendBase32768(out, gz)
		out = append(out, suffix16...)
	}
	return out
}

// Pack16MaxLen bounds the script of a pack of at most parts parts holding
// at most n payload bytes in all, so a reader can bound its read.
func Pack16MaxLen(parts, n int) int {
	line := Envelope16Len(0) - len(bom16) + 2 // each part may round up one unit
	return len(bom16) + parts*line + 2*Units32768(n)
}

// OpenPack16 opens a pack script (or one dense envelope) and returns every
// part it holds, in order, each id checked against its payload's SHA-256.
func OpenPack16(script []byte) (ids []string, gzs [][]byte, err error) {
	err = scanPack16(script, func(id string, units []byte) (bool, error) {
		gz, err := openUnits(id, units)
		if err != nil {
			return false, err
		}
		ids, gzs = append(ids, id), append(gzs, gz)
		return true, nil
	})
	return ids, gzs, err
}

// OpenPackPart returns the payload of part want from a pack script,
// decoding only that part's line.
func OpenPackPart(script []byte, want string) ([]byte, error) {
	var gz []byte
	err := scanPack16(script, func(id string, units []byte) (bool, error) {
		if id != want {
			return true, nil
		}
		var err error
		gz, err = openUnits(id, units)
		return false, err
	})
	if err == nil && gz == nil {
		err = fmt.Errorf("open shard pack: part %s is not in it", want)
	}
	return gz, err
}

// Pack16Units indexes a pack script (or one dense envelope) without
// decoding it: each part's id and the base 32768 units of its line, in
// order, refusing anything Pack16 does not write. OpenPackUnits decodes
// and checks a part's units, so a reader of a few parts of a pack decodes
// and hashes only those.
func Pack16Units(script []byte) (ids []string, units [][]byte, err error) {
	err = scanPack16(script, func(id string, u []byte) (bool, error) {
		ids, units = append(ids, id), append(units, u)
		return true, nil
	})
	return ids, units, err
}

// OpenPackUnits decodes the units of part id (from Pack16Units) and checks
// them against its SHA-256.
func OpenPackUnits(id string, units []byte) ([]byte, error) { return openUnits(id, units) }

var line16 = prefix16[len(bom16):]

// scanPack16 calls fn with each line's id and base 32768 units until fn
// says stop, refusing anything Pack16 does not write.
func scanPack16(script []byte, fn func(id string, units []byte) (more bool, err error)) error {
	rest, ok := bytes.CutPrefix(script, []byte(bom16))
	if !ok {
		return errors.New("open shard pack: missing byte order mark")
	}
	if len(rest) == 0 {
		return errors.New("open shard pack: no parts")
	}
	total := 0
	for len(rest) > 0 {
		if rest, ok = bytes.CutPrefix(rest, line16); !ok {
			return errors.New("open shard pack: missing __dsightShard(\" prefix")
		}
		if len(rest) < 2*idLen+len(middle16) {
			return errors.New("open shard pack: truncated id")
		}
		ascii := make([]byte, idLen)
		for i := range idLen {
			if rest[2*i+1] != 0 {
				return errors.New("open shard pack: id is not ASCII")
			}
			ascii[i] = rest[2*i]
		}
		id := string(ascii)
		if !isLowerHex(id) {
			return fmt.Errorf("open shard pack: id %q is not %d lowercase hex digits", id, idLen)
		}
		if rest, ok = bytes.CutPrefix(rest[2*idLen:], middle16); !ok {
			return errors.New("open shard pack: malformed separator after id")
		}
		// The payload's units are all U+3000 or above: the first `*` at an
		// even offset ends it.
		end := -1
		for i := 0; i+1 < len(rest); i += 2 {
			if rest[i] == '*' && rest[i+1] == 0 {
				end = i
				break
			}
		}
		if end < 0 {
			return errors.New("open shard pack: unterminated payload")
		}
		units := rest[:end]
		if rest, ok = bytes.CutPrefix(rest[end:], suffix16); !ok {
			return errors.New("open shard pack: missing */});\\n ending")
		}
		if total += len(units) / 2 * unitBits / 8; total > maxRawBytes {
			return fmt.Errorf("open shard pack: payloads exceed %d bytes", maxRawBytes)
		}
		more, err := fn(id, units)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

func openUnits(id string, units []byte) ([]byte, error) {
	gz, err := DecodeBase32768(units)
	if err != nil {
		return nil, fmt.Errorf("open shard pack: part %s: %w", id, err)
	}
	if got := ID(gz); got != id {
		return nil, fmt.Errorf("open shard pack: content hash mismatch: id %s does not match the payload's sha256 %s", id, got)
	}
	return gz, nil
}
