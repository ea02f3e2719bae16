package sqlstore

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// nvtxRow gives the bytes the generic record gives, for integers of every
// serial width (and 0 and 1 in both schema formats) and any real, with
// end_exact when the computed end would differ and without it when not.
func TestNVTXRowEncodesAsRecord(t *testing.T) {
	ints := []int64{0, 1, -1, 2, 127, 128, -128, -129, 32767, 32768, -32769, 1<<23 - 1, 1 << 23, -1 << 23, -1<<23 - 1,
		math.MaxInt32, math.MaxInt32 + 1, math.MinInt32 - 1, 1<<47 - 1, 1 << 47, -1<<47 - 1, math.MaxInt64, math.MinInt64}
	rng := rand.New(rand.NewPCG(5, 5))
	computed := 0
	for _, small := range []bool{false, true} {
		row := nvtxRow{intSmall: small}
		ref := &record{intSmall: small}
		for k := range 5000 {
			pick := func() int64 { return ints[rng.IntN(len(ints))] }
			key := nvtxKey{int64(k), pick(), rng.NormFloat64() * 1e6, pick()}
			name, thread, dur := pick(), pick(), pick()
			end := math.Float64frombits(rng.Uint64())
			if k%2 == 0 {
				// A start of whole nanoseconds and the end the engine gives.
				ns := rng.Int64N(1 << 45)
				key.start, dur = float64(ns)/1e9, rng.Int64N(1<<uint(rng.IntN(40)))
				end = float64(ns+dur) / 1e9
			}
			got, err := row.encode(key, name, thread, dur, end)
			if err != nil {
				t.Fatal(err)
			}
			ref.reset()
			ref.int(key.profile)
			ref.int(key.bucket)
			ref.real(key.start)
			ref.int(key.rowid)
			ref.int(name)
			ref.int(thread)
			ref.int(dur)
			if endIsComputed(key.start, end, dur) {
				computed++
			} else {
				ref.real(end)
			}
			if want := ref.bytes(); !bytes.Equal(got, want) {
				t.Fatalf("intSmall %v, key %+v: % x, want % x", small, key, got, want)
			}
		}
	}
	if computed != 5000 {
		t.Errorf("%d of the 5000 rows of whole-nanosecond times computed their end, want all", computed)
	}
}

// Rows out of key order, a repeated key and a NaN start are refused.
func TestNVTXRowRefusesDisorder(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b nvtxKey
	}{
		{"profile", nvtxKey{1, 0, 0, 0}, nvtxKey{0, 5, 5, 5}},
		{"bucket", nvtxKey{0, 2, 0, 0}, nvtxKey{0, 1, 5, 5}},
		{"start", nvtxKey{0, 1, 0.5, 0}, nvtxKey{0, 1, 0.25, 5}},
		{"rowid", nvtxKey{0, 1, 0.5, 9}, nvtxKey{0, 1, 0.5, 8}},
		{"repeated", nvtxKey{0, 1, 0.5, 9}, nvtxKey{0, 1, 0.5, 9}},
		{"NaN", nvtxKey{0, 1, 0.5, 9}, nvtxKey{0, 1, math.NaN(), 10}},
	} {
		var row nvtxRow
		if _, err := row.encode(c.a, 0, 0, 0, 1); err != nil {
			t.Fatalf("%s: first row: %v", c.name, err)
		}
		if _, err := row.encode(c.b, 0, 0, 0, 1); err == nil {
			t.Errorf("%s: %+v after %+v was accepted", c.name, c.b, c.a)
		}
	}
}

// The exponent shortcut gives DurationBucket's class for every duration:
// random ones over every decade a range spans, and those at, just above
// and just below each power of two, where the logarithm decides.
func TestDurationBucketFast(t *testing.T) {
	check := func(d float64) {
		if got, want := durationBucket(d), DurationBucket(d); got != want {
			t.Fatalf("durationBucket(%v) = %d, DurationBucket = %d", d, got, want)
		}
	}
	for _, d := range []float64{0, -1, 1e-12, 1e-9, 1.5e-9, 1, 1.5, 3, 1 << 34} {
		check(d)
	}
	for e := -40; e <= 40; e++ {
		p := math.Ldexp(1, e)
		x := p
		for range 64 {
			check(x)
			x = math.Nextafter(x, math.Inf(1))
		}
		x = p
		for range 64 {
			check(x)
			x = math.Nextafter(x, 0)
		}
		check(p * 1.0000001)
		check(p * 1.0000002)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 2_000_000 {
		check(math.Pow(10, -10+rng.Float64()*14))
	}
	// Differences of nanosecond times in seconds, as the store computes them.
	for range 1_000_000 {
		s := rng.Int64N(1 << 45)
		e := s + rng.Int64N(1<<uint(rng.IntN(40)))
		check(float64(e)/1e9 - float64(s)/1e9)
	}
}
