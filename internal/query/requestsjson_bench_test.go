package query

import "testing"

// BenchmarkRequestsHandle is BenchmarkRequestsPage through Handle, as the
// CLI and the wasm adapter ask: no buffer of the caller's to reuse, so
// each answer is one fresh copy.
func BenchmarkRequestsHandle(b *testing.B) {
	e, err := FromDataset(tracedFixture(100000))
	if err != nil {
		b.Fatal(err)
	}
	q := []byte(`{"op":"requests","args":{"limit":1000}}`)
	var out []byte
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		out = e.Handle(q)
	}
	b.ReportMetric(float64(len(out)), "answer-bytes")
}
