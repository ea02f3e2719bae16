package query

import "testing"

// BenchmarkRequestsPage is the engine side of queryRequests({limit: 1000})
// on 100,000 traced requests: selecting, shaping and JSON-encoding one
// page (the page's side adds the string crossing and JSON.parse).
func BenchmarkRequestsPage(b *testing.B) {
	e, err := FromDataset(tracedFixture(100000))
	if err != nil {
		b.Fatal(err)
	}
	q := []byte(`{"op":"requests","args":{"limit":1000}}`)
	var buf []byte
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		buf, _ = e.AppendAnswer(buf[:0], q)
	}
	b.ReportMetric(float64(len(buf)), "answer-bytes")
}
