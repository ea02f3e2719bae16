package shard

// hexPairs holds each byte's two lowercase hex digits.
var hexPairs = func() (t [256][2]byte) {
	const digits = "0123456789abcdef"
	for i := range t {
		t[i] = [2]byte{digits[i>>4], digits[i&15]}
	}
	return t
}()

// formatUUID writes the 16 bytes of b as the 36 characters of a canonical
// UUID into t. Unrolled, with one table look-up a byte: in the page the
// engine runs this once per id of a 100,000-request core before V8 has
// optimized it, where every operation counts (a loop testing each byte's
// place for a dash cost a third of a second there).
func formatUUID(t []byte, b []byte) {
	_, _ = t[35], b[15]
	p := hexPairs[b[0]]
	t[0], t[1] = p[0], p[1]
	p = hexPairs[b[1]]
	t[2], t[3] = p[0], p[1]
	p = hexPairs[b[2]]
	t[4], t[5] = p[0], p[1]
	p = hexPairs[b[3]]
	t[6], t[7] = p[0], p[1]
	t[8] = '-'
	p = hexPairs[b[4]]
	t[9], t[10] = p[0], p[1]
	p = hexPairs[b[5]]
	t[11], t[12] = p[0], p[1]
	t[13] = '-'
	p = hexPairs[b[6]]
	t[14], t[15] = p[0], p[1]
	p = hexPairs[b[7]]
	t[16], t[17] = p[0], p[1]
	t[18] = '-'
	p = hexPairs[b[8]]
	t[19], t[20] = p[0], p[1]
	p = hexPairs[b[9]]
	t[21], t[22] = p[0], p[1]
	t[23] = '-'
	p = hexPairs[b[10]]
	t[24], t[25] = p[0], p[1]
	p = hexPairs[b[11]]
	t[26], t[27] = p[0], p[1]
	p = hexPairs[b[12]]
	t[28], t[29] = p[0], p[1]
	p = hexPairs[b[13]]
	t[30], t[31] = p[0], p[1]
	p = hexPairs[b[14]]
	t[32], t[33] = p[0], p[1]
	p = hexPairs[b[15]]
	t[34], t[35] = p[0], p[1]
}
