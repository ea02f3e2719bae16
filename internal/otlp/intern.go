package otlp

import (
	"encoding/binary"
	"math/bits"
)

// names fronts the scanner's intern table with a small direct-mapped
// cache: a record repeats a few dozen attribute keys, span names and short
// values on every span, and comparing against the one string a slot holds
// costs less than hashing into the table. A miss (a new string, or two
// strings sharing a slot) goes to the table and takes the slot; either
// way the string returned has the bytes asked for.
type names struct {
	s     *scanner
	slots [nameSlots]string
}

const nameSlots = 512

func (n *names) intern(b []byte) string {
	e := &n.slots[nameSlot(b)]
	if *e == string(b) {
		return *e
	}
	v := n.s.Intern(b)
	*e = v
	return v
}

// nameSlot mixes the length with the first and last eight bytes: keys
// such as dynamo.lifecycle.schema and dynamo.lifecycle.profile differ in
// their ends, values such as roles in their starts.
func nameSlot(b []byte) uint {
	n := len(b)
	var x uint64
	if n >= 8 {
		x = binary.LittleEndian.Uint64(b) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[n-8:]), 29)
	} else {
		for _, c := range b {
			x = x<<8 | uint64(c)
		}
	}
	x ^= uint64(n) << 56
	return uint((x * 0x9E3779B97F4A7C15) >> (64 - 9))
}
