package metrics

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/tachometer"
)

// memStore is the reference pointStore: every series' pairs stay in memory
// until the read ends, then each series is sorted (stably) when it arrived
// out of order. The spill must give exactly what it gives.
type memStore struct {
	infos  []*tachometer.SeriesInfo
	times  [][]int64
	values [][]float64
	src    [][]int64 // each pair's capture file and row
	rows   [][]int64
	sorted []bool
}

func (s *memStore) Series(info *tachometer.SeriesInfo) error {
	s.infos = append(s.infos, info)
	s.times = append(s.times, nil)
	s.values = append(s.values, nil)
	s.src, s.rows = append(s.src, nil), append(s.rows, nil)
	s.sorted = append(s.sorted, true)
	return nil
}

func (s *memStore) Points(ps []tachometer.Point) error {
	for _, p := range ps {
		i := p.Series
		if n := len(s.times[i]); n > 0 && s.times[i][n-1] > p.TimeNS {
			s.sorted[i] = false
		}
		s.times[i] = append(s.times[i], p.TimeNS)
		s.values[i] = append(s.values[i], p.Value)
		s.src[i], s.rows[i] = append(s.src[i], int64(p.Source)), append(s.rows[i], p.Row)
	}
	return nil
}

func (s *memStore) seriesInfos() []*tachometer.SeriesInfo { return s.infos }
func (s *memStore) endRead() error                        { return nil }
func (s *memStore) release(int)                           {}
func (s *memStore) close() error                          { return nil }

func (s *memStore) load(i int, sc *loadScratch) ([]int64, []float64, error) {
	if !s.sorted[i] {
		sort.Stable(byTimeWithEvidence{byTime{s.times[i], s.values[i]}, s.src[i], s.rows[i]})
	}
	sc.sources, sc.rows = s.src[i], s.rows[i]
	return s.times[i], s.values[i], nil
}

const (
	captureT0  = int64(1_780_000_000_000_000_000)
	captureSec = int64(1_000_000_000)
)

// awkwardOptions are the capture options of awkwardCapture's files.
func awkwardOptions(batchRows int) tachometer.CaptureOptions {
	return tachometer.CaptureOptions{Extra: []string{"gpu", "hostname"}, StartNS: captureT0, BatchRows: batchRows}
}

// writeCaptureFile writes rows of series as one capture file.
func writeCaptureFile(t *testing.T, path string, enc tachometer.Encoding, series []tachometer.CaptureSeries, rows []tachometer.CaptureSample, opts tachometer.CaptureOptions) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := tachometer.NewCaptureWriter(f, enc, series, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// awkwardCapture writes a capture leaf whose series exercise every ordering
// rule: a final.parquet of many small row groups (sorted by name, then
// time, as compacted) with rows out of time order, identical duplicates and
// conflicting values inside it, and two Arrow tails overlapping its end
// with more duplicates, conflicts, reversed rows and -0 beside 0. It returns
// the leaf directory.
func awkwardCapture(t *testing.T, badTail bool) string {
	t.Helper()
	leaf := filepath.Join(t.TempDir(), "logs", "tachometer", "local", "capture-1")
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		t.Fatal(err)
	}
	series := []tachometer.CaptureSeries{
		{Endpoint: "http://w0:9400/metrics", Name: `DCGM_FI_DEV_GPU_UTIL{gpu="0"}`, Extra: []string{"0", "node-a"}},
		{Endpoint: "http://w0:9400/metrics", Name: `DCGM_FI_DEV_GPU_UTIL{gpu="1"}`, Extra: []string{"1", "node-a"}},
		{Endpoint: "http://w0:8000/metrics", Name: `vllm:num_requests_running{engine="0"}`, Extra: []string{"", "node-a"}},
		{Endpoint: "http://w0:8000/metrics", Name: `vllm:e2e_request_latency_seconds_bucket{le="0.5"}`, Extra: []string{"", "node-a"}, Bucket: true, Upper: 0.5},
		{Endpoint: "http://w1:8000/metrics", Name: `vllm:num_requests_running{engine="0"}`, Extra: []string{"", "node-b"}},
	}
	if badTail {
		series = append(series, tachometer.CaptureSeries{Endpoint: "http://w1:8000/metrics", Name: `bad{unterminated="`, Extra: []string{"", "node-b"}})
	}
	const n = 400
	value := func(s, k int) float64 {
		switch s {
		case 2, 4:
			return float64((k * 7 % 13) - s) // small integers: many repeats, and 0
		case 3:
			return float64(k / 3)
		}
		return math.Sin(float64(k+s)/17) * 100
	}
	var final []tachometer.CaptureSample
	for s := range 5 { // final.parquet is sorted by metric name, then time
		var rows []tachometer.CaptureSample
		for k := range n {
			row := tachometer.CaptureSample{Series: int32(s), TimeNS: captureT0 + int64(k)*captureSec, Value: value(s, k)}
			rows = append(rows, row)
			switch {
			case k%50 == 7: // an identical duplicate
				rows = append(rows, row)
			case k%90 == 11 && s != 3: // a conflicting value
				rows = append(rows, tachometer.CaptureSample{Series: row.Series, TimeNS: row.TimeNS, Value: row.Value + 1})
			}
		}
		// Rows out of time order, before any overlap: too late to be
		// compared, so they are all kept, and which of 0 and -0 comes
		// first decides the row's value.
		if s != 3 {
			rows[30+s], rows[31+s] = rows[31+s], rows[30+s]
		}
		if s == 2 {
			late := tachometer.CaptureSample{Series: 2, TimeNS: captureT0 + 43*captureSec, Value: math.Copysign(0, -1)}
			rows = slices.Insert(rows, 60, late, late, rows[50])
		}
		final = append(final, rows...)
	}
	writeCaptureFile(t, filepath.Join(leaf, "final.parquet"), tachometer.EncodingParquet, series, final, awkwardOptions(97))

	var tail []tachometer.CaptureSample
	for k := n - 60; k < n+40; k++ { // written in scrape order, every series per tick
		for s := range 5 {
			v := value(s, k)
			switch {
			case k%13 == 0 && k < n: // conflicts with the Parquet
				v += 0.25
			case s == 2 && value(s, k) == 0:
				v = math.Copysign(0, -1)
			}
			tail = append(tail, tachometer.CaptureSample{Series: int32(s), TimeNS: captureT0 + int64(k)*captureSec, Value: v})
		}
	}
	// Reversed stretches: later samples arrive before earlier ones.
	for lo, hi := 40, 70; lo < hi; lo, hi = lo+1, hi-1 {
		tail[lo], tail[hi] = tail[hi], tail[lo]
	}
	writeCaptureFile(t, filepath.Join(leaf, "current-1.arrow"), tachometer.EncodingArrowStream, series, tail[:len(tail)/2], awkwardOptions(64))

	second := append([]tachometer.CaptureSample(nil), tail[len(tail)/2:]...)
	// The second tail repeats the start of the overlap: duplicates of rows
	// already read, arriving long after later rows of the same series.
	second = append(second, final[n-30:n-10]...)
	if badTail {
		second = append(second, tachometer.CaptureSample{Series: 5, TimeNS: captureT0 + n*captureSec, Value: 1})
	}
	writeCaptureFile(t, filepath.Join(leaf, "current-2.arrow"), tachometer.EncodingArrowFile, series, second, awkwardOptions(33))
	return leaf
}

func readAwkward(t *testing.T, leaf string, newStore func() (pointStore, error)) (*Result, []*built, error) {
	t.Helper()
	res := &Result{Audit: map[string]int64{}}
	reg := &registry{}
	opt := Options{Capture: leaf, OriginNS: captureT0 + 3*captureSec, LastNS: captureT0 + 1000*captureSec, Register: reg.register}
	fams, out, err := readCaptureInto(opt, res, newStore)
	res.Families = fams
	return res, out, err
}

func TestSpillGivesTheInMemorySummaries(t *testing.T) {
	leaf := awkwardCapture(t, false)
	wantRes, want, err := readAwkward(t, leaf, func() (pointStore, error) { return &memStore{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"duplicate_metric_points", "conflicting_metric_samples", "out_of_window_metric_rows"} {
		if wantRes.Audit[k] == 0 {
			t.Fatalf("the capture has no %s: %v", k, wantRes.Audit)
		}
	}
	if len(want) != 5 {
		t.Fatalf("%d series, want 5", len(want))
	}
	for i := range want {
		if want[i].meta.Samples == 0 || want[i].meta.Summary.Payload.Len() == 0 {
			t.Fatalf("series %d is empty", i)
		}
	}
	// Which series arrived out of order is what the reference saw.
	ref := &memStore{}
	if _, _, err := readAwkward(t, leaf, func() (pointStore, error) { return ref, nil }); err != nil {
		t.Fatal(err)
	}
	unsorted := 0
	for _, ok := range ref.sorted {
		if !ok {
			unsorted++
		}
	}
	if unsorted < 2 {
		t.Fatalf("%d series arrived out of order; the capture must give more", unsorted)
	}
	for _, block := range []int{spillHeader + maxSpillPair, 64, 1024, 0} {
		t.Run(fmt.Sprintf("block=%d", block), func(t *testing.T) {
			gotRes, got, err := readAwkward(t, leaf, func() (pointStore, error) { return newSpillStore(block) })
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotRes, wantRes) {
				t.Errorf("catalog differs:\n got %+v\nwant %+v", gotRes, wantRes)
			}
			if len(got) != len(want) {
				t.Fatalf("%d series, want %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(inMemory(t, got[i].meta), inMemory(t, want[i].meta)) || got[i].sortKey != want[i].sortKey {
					t.Errorf("series %d (%s) differs", i, want[i].meta.RawName)
				}
			}
		})
	}
}

// inMemory is m with its summary read out of the spool, for comparing
// payloads rather than where they are kept.
func inMemory(t *testing.T, m model.MetricSeries) model.MetricSeries {
	t.Helper()
	if m.Summary != nil {
		b, err := m.Summary.Payload.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		s := *m.Summary
		s.Payload = model.InMemory(b)
		m.Summary = &s
	}
	return m
}

func TestSpillLeavesNoFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		bad  bool
	}{{"read", false}, {"failed read", true}} {
		t.Run(tc.name, func(t *testing.T) {
			leaf := awkwardCapture(t, tc.bad)
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			_, _, err := readAwkward(t, leaf, func() (pointStore, error) { return newSpillStore(0) })
			if (err != nil) != tc.bad {
				t.Fatalf("error %v", err)
			}
			left, _ := os.ReadDir(tmp)
			if len(left) != 0 {
				t.Fatalf("%d entries left in the temporary directory, e.g. %s", len(left), left[0].Name())
			}
		})
	}
}

// TestSpillUnlinksEarly: where an open file can be unlinked, the spill is
// invisible from the start, so a killed build leaves nothing behind.
func TestSpillUnlinksEarly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be unlinked")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s, err := newSpillStore(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the spill is visible while open: %s", left[0].Name())
	}
}

func TestSpillBlockSize(t *testing.T) {
	for _, size := range []int{-16, 0x10000, spillHeader + maxSpillPair - 1} {
		if s, err := newSpillStore(size); err == nil {
			s.close()
			t.Errorf("block of %d bytes accepted", size)
		}
	}
}

// pairSequences are time and value sequences the codec must round-trip:
// steady scrapes, jitter, repeats, sign changes, and time steps that wrap.
var pairSequences = []struct {
	times  []int64
	values []float64
}{
	{[]int64{captureT0, captureT0 + captureSec, captureT0 + 2*captureSec, captureT0 + 3*captureSec + 7}, []float64{1, 1, 1.5, -2}},
	{[]int64{5, 5, 4, 100, -3}, []float64{0, math.Copysign(0, -1), math.MaxFloat64, math.SmallestNonzeroFloat64, -math.MaxFloat64}},
	{[]int64{math.MinInt64, math.MaxInt64, 0, math.MinInt64}, []float64{math.Inf(1), math.NaN(), 1e-300, 123456789}},
	{[]int64{}, []float64{}},
}

func TestPairCodecRoundTrips(t *testing.T) {
	for i, seq := range pairSequences {
		var enc, dec pairCodec
		var buf []byte
		for k := range seq.times {
			buf = enc.append(buf, seq.times[k], seq.values[k])
		}
		for k := range seq.times {
			ts, v, used := dec.next(buf)
			if used == 0 || ts != seq.times[k] || math.Float64bits(v) != math.Float64bits(seq.values[k]) {
				t.Fatalf("sequence %d pair %d: got (%d, %v, %d), want (%d, %v)", i, k, ts, v, used, seq.times[k], seq.values[k])
			}
			buf = buf[used:]
		}
		if len(buf) != 0 {
			t.Fatalf("sequence %d: %d bytes left", i, len(buf))
		}
	}
}

// FuzzPairCodec checks that any pairs round-trip and that decoding any
// bytes never panics and never reads past its input.
func FuzzPairCodec(f *testing.F) {
	for _, seq := range pairSequences {
		var enc pairCodec
		var buf []byte
		for k := range seq.times {
			buf = enc.append(buf, seq.times[k], seq.values[k])
		}
		f.Add(buf)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		var dec pairCodec
		var times []int64
		var bitsOf []uint64
		for rest := data; len(rest) > 0; {
			ts, v, used := dec.next(rest)
			if used == 0 {
				break
			}
			if used > len(rest) {
				t.Fatalf("used %d of %d bytes", used, len(rest))
			}
			times, bitsOf = append(times, ts), append(bitsOf, math.Float64bits(v))
			rest = rest[used:]
		}
		// Whatever decoded must encode and decode to itself.
		var enc, again pairCodec
		var buf []byte
		for k := range times {
			buf = enc.append(buf, times[k], math.Float64frombits(bitsOf[k]))
		}
		for k := range times {
			ts, v, used := again.next(buf)
			if used == 0 || ts != times[k] || math.Float64bits(v) != bitsOf[k] {
				t.Fatalf("pair %d does not round-trip", k)
			}
			buf = buf[used:]
		}
	})
}

// TestSpillSweepsIdleSeries feeds series that stop, resume after sweeps and
// interleave, with sweeps after almost every batch: each series must load
// exactly the pairs it was given, idle series must have been written out
// and freed, and series still receiving points must keep their block.
func TestSpillSweepsIdleSeries(t *testing.T) {
	s, err := newSpillStore(64)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	s.sweepAt, s.sweepBytes = 1, 1
	const series = 6
	for i := range series {
		if err := s.Series(&tachometer.SeriesInfo{ID: i}); err != nil {
			t.Fatal(err)
		}
	}
	want := make([][]tachometer.Point, series)
	at := int64(0)
	feed := func(ids ...int) {
		var batch []tachometer.Point
		for k := 0; k < 7; k++ {
			for _, i := range ids {
				at += 1000 + int64(k%3)
				p := tachometer.Point{Series: int32(i), TimeNS: at, Value: float64(i*100 + len(want[i]))}
				if i == 5 && len(want[i])%4 == 1 {
					p.TimeNS -= 5000 // out of order: load sorts it back
				}
				batch = append(batch, p)
				want[i] = append(want[i], p)
			}
		}
		if err := s.Points(batch); err != nil {
			t.Fatal(err)
		}
	}
	freed := 0
	for round := range 12 {
		switch {
		case round < 3:
			feed(0, 1) // 0 and 1 run, then stop
		case round < 6:
			feed(2, 3, 5)
		case round < 9:
			feed(0, 4, 5) // 0 resumes after sweeps wrote its partial block
		default:
			feed(1, 3, 4, 5)
		}
		for i := range series {
			if s.series[i].pending == nil && len(want[i]) > 0 {
				freed++
			}
		}
		if s.series[5].pending == nil && round >= 3 {
			t.Fatalf("round %d: series 5 receives points every round but lost its block", round)
		}
	}
	if freed == 0 {
		t.Fatal("no idle series was swept")
	}
	if err := s.endRead(); err != nil {
		t.Fatal(err)
	}
	var sc loadScratch
	for i := range series {
		times, values, err := s.load(i, &sc)
		if err != nil {
			t.Fatal(err)
		}
		exp := slices.Clone(want[i])
		slices.SortStableFunc(exp, func(a, b tachometer.Point) int { return cmp.Compare(a.TimeNS, b.TimeNS) })
		if len(times) != len(exp) {
			t.Fatalf("series %d loads %d pairs, want %d", i, len(times), len(exp))
		}
		for k, p := range exp {
			if times[k] != p.TimeNS || values[k] != p.Value {
				t.Fatalf("series %d pair %d = (%d, %g), want (%d, %g)", i, k, times[k], values[k], p.TimeNS, p.Value)
			}
		}
	}
	if total := s.pending; total < 0 {
		t.Fatalf("pending bytes went negative: %d", total)
	}
}
