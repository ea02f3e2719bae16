package query

import "github.com/dsight/dsight/internal/pyramid"

// A chart's window can be shorter than a series' sampling interval (a
// 280 ms TTFT window over a 1 Hz scrape): drawn from the window's rows
// alone, it would be blank. The plot of a sample series therefore also
// carries the recorded rows on either side of the window, the last before
// from and the first after to, as its first and last points; their times
// lie outside [From, To], which is how the page tells them apart and marks
// them. They are never counted in the window's statistics.

// neighbours holds the rows just outside a window, as (seconds, value)
// with NaN for a gap row.
type neighbours struct {
	before, after       [2]float64
	hasBefore, hasAfter bool
}

func (nb neighbours) count() int {
	n := 0
	if nb.hasBefore {
		n++
	}
	if nb.hasAfter {
		n++
	}
	return n
}

// neighboursOf reads the rows next to window w from p. A missing chunk is
// an error naming it, like any other row the plot reads.
func neighboursOf(p *pyramid.Pyramid, w window) (neighbours, error) {
	var nb neighbours
	row, valid, found, err := p.LastAtOrBefore(w.fromNS - 1)
	if err != nil {
		return nb, err
	}
	if found {
		nb.before, nb.hasBefore = [2]float64{seconds(row.T), plotValue(row.V, valid)}, true
	}
	row, valid, found, err = p.FirstAtOrAfter(w.toNS + 1)
	if err != nil {
		return nb, err
	}
	if found {
		nb.after, nb.hasAfter = [2]float64{seconds(row.T), plotValue(row.V, valid)}, true
	}
	return nb, nil
}
