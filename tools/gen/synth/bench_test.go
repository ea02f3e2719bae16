package synth

import (
	"io"
	"testing"
)

func BenchmarkNewPlan100k(b *testing.B) {
	for b.Loop() {
		if _, err := NewPlan(Config{Seed: 1, Requests: 100_000}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "requests/s")
}

func BenchmarkWriteAIPerf100k(b *testing.B) {
	p, err := NewPlan(Config{Seed: 1, Requests: 100_000})
	if err != nil {
		b.Fatal(err)
	}
	n, _, err := WriteAIPerf(io.Discard, p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	for b.Loop() {
		if _, _, err := WriteAIPerf(io.Discard, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "requests/s")
}
