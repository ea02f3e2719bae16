package join

// strTable keeps each string once, by index: the paths, hosts, roles and
// ids the compact bridges and worker-log bindings record repeat for
// every line.
type strTable struct {
	strs  []string
	index map[string]uint32
}

// intern is s's index, added at the end when new.
func (t *strTable) intern(s string) uint32 {
	k, ok := t.index[s]
	if !ok {
		if t.index == nil {
			t.index = map[string]uint32{}
		}
		k = uint32(len(t.strs))
		t.index[s] = k
		t.strs = append(t.strs, s)
	}
	return k
}

// seal drops the index once every string is in: the strings are held
// from the logs' scan to the end of the join, the index only while they
// are added.
func (t *strTable) seal() { t.index = nil }

// compactID is a recorded request id: the 16 bytes whose canonical text
// (formatUUID) it is, or, when its text is no canonical UUID (an empty
// id included), that text in a strTable.
type compactID struct {
	uuid [16]byte
	// text is 0 for a UUID, else the text's index in the table plus one.
	text uint32
}

// newCompactID keeps id, its text in t when it is no canonical UUID.
func newCompactID(id string, t *strTable) compactID {
	if u, ok := parseUUID(id); ok {
		return compactID{uuid: u}
	}
	return compactID{text: t.intern(id) + 1}
}

// recorded is the id's text as recorded, from t; buf holds the text of a
// UUID (the result is only read, never kept, so it may be a view of buf).
func (c *compactID) recorded(t *strTable, buf *[36]byte) []byte {
	if c.text != 0 {
		return []byte(t.strs[c.text-1])
	}
	return formatUUID(buf, &c.uuid)
}
