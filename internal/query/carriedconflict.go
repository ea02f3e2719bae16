package query

import "github.com/dsight/dsight/internal/pyramid"

// carriedConflict fills s.CarriedValues when the setting carried into the
// range was recorded at tNS with different values (the pyramid keeps the
// row a gap and the distinct points beside it): a chart then draws each
// held value instead of none.
func carriedConflict(p *pyramid.Pyramid, tNS int64, valid bool, s *PlotSeries) error {
	if valid {
		return nil
	}
	rows, err := p.RowsAt(tNS)
	if err != nil || len(rows) < 2 {
		return err
	}
	s.Flags |= PlotCarriedConflict
	s.CarriedValues = make([]float64, len(rows))
	for k, r := range rows {
		s.CarriedValues[k] = plotValue(r.V, r.Valid)
	}
	return nil
}
