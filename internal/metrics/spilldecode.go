package metrics

import (
	"encoding/binary"
	"math"
)

// spillDecoder decodes one series' blocks into its columns. It is what
// pairCodec.nextMarked and evidenceCodec.next/nextInStride do pair by pair,
// written as one loop over a block with its state in locals: loading the
// spill back decodes every pair of the capture (100M for the largest
// generated one), and a closure's captured state is read and written
// through memory on every pair.
type spillDecoder struct {
	dec           pairCodec
	ev            evidenceCodec
	times         []int64
	values        []float64
	sources, rows []int64
	k             int // pairs decoded
}

// decode appends the pairs of one block's used bytes; false when they do
// not decode, or hold more pairs than the columns.
func (d *spillDecoder) decode(pairs []byte) bool {
	dec, ev, k := d.dec, d.ev, d.k
	times, values, sources, rows := d.times, d.values, d.sources, d.rows
	ok := true
	for len(pairs) > 0 {
		if k >= len(times) || k >= len(values) || k >= len(sources) || k >= len(rows) {
			ok = false
			break
		}
		var delta uint64
		n := 1
		if b := pairs[0]; b < 0x80 {
			delta = uint64(b)
		} else if delta, n = binary.Uvarint(pairs); n <= 0 {
			ok = false
			break
		}
		if n >= len(pairs) {
			ok = false
			break
		}
		mark := pairs[n] & spillSameStride
		var x uint64
		m := 1 // an unchanged value: its header alone
		if pairs[n]&^spillSameStride != 0 {
			if x, m = readXOR(pairs[n:], mark); m == 0 {
				ok = false
				break
			}
		}
		used := n + m
		dec.step += unzigzag(delta)
		dec.t += dec.step
		dec.bits ^= x
		if mark != 0 {
			ev.nextInStride()
		} else {
			_, _, e := ev.next(pairs[used:])
			if e == 0 {
				ok = false
				break
			}
			used += e
		}
		times[k], values[k], sources[k], rows[k] = dec.t, math.Float64frombits(dec.bits), ev.src, ev.row
		pairs = pairs[used:]
		k++
	}
	d.dec, d.ev, d.k = dec, ev, k
	return ok
}
