package spanspill

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// names is the store's table of span names and attribute keys. A run
// records a few dozen of them, repeated on every span: as an index they
// take a byte or two instead of ~20, which is most of a spilled span's
// keys, and a span read back shares the table's strings instead of
// slicing its bucket's.
//
// A name is written as a varint: 0 and then the string inline, or the
// 1-based index of a table entry. The table keeps at most maxNames
// entries (maxNames, maxNameBytes), so input that names every attribute
// differently costs the store no more than that bound; the rest are
// written inline.
type names struct {
	ids  map[string]uint64
	list []string
}

// maxNames and maxNameBytes bound the table: at most 4,096 names of at
// most 128 bytes each (512 KB); longer names are always inline.
const (
	maxNames     = 4096
	maxNameBytes = 128
)

// appendName writes s by index, adding it to the table while there is
// room; a nil table writes every name inline.
func (n *names) appendName(b []byte, s string) []byte {
	if n != nil {
		i, ok := n.ids[s]
		if !ok && len(n.list) < maxNames && len(s) <= maxNameBytes {
			if n.ids == nil {
				n.ids = map[string]uint64{}
			}
			// A copy: s may be a slice of a bucket read back or of a
			// decoded record, which the table would otherwise keep.
			s = strings.Clone(s)
			n.list = append(n.list, s)
			i, ok = uint64(len(n.list)), true
			n.ids[s] = i
		}
		if ok {
			return binary.AppendUvarint(b, i)
		}
	}
	return appendStr(append(b, 0), s)
}

// name reads what appendName wrote.
func (d *decoder) name() string {
	i := d.uint()
	if i == 0 {
		return d.str()
	}
	if i > uint64(len(d.names)) {
		d.fail(fmt.Errorf("name %d of %d", i, len(d.names)))
		return ""
	}
	return d.names[i-1]
}
