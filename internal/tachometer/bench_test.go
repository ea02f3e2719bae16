package tachometer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

const benchRows = 5_000_000

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchCapture writes, once per test binary, a final.parquet of benchRows
// rows shaped like a real capture: 400 series (20 families × 4 GPUs × 5
// endpoints) scraped together every second, gauges drifting slowly.
func benchCapture(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "tachometer-bench-")
		if benchErr != nil {
			return
		}
		start := time.Now()
		writeBenchParquet(b, filepath.Join(benchDir, "final.parquet"))
		b.Logf("wrote %d-row capture in %v", benchRows, time.Since(start))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

func writeBenchParquet(b *testing.B, path string) {
	type series struct {
		name, endpoint, host, gpu string
		value                     float64
	}
	var all []series
	for e := 0; e < 5; e++ {
		for f := 0; f < 20; f++ {
			for g := 0; g < 4; g++ {
				all = append(all, series{
					name:     fmt.Sprintf(`DCGM_FI_DEV_FIELD_%02d{UUID="GPU-%d-%d",device="nvidia%d",gpu="%d",modelName="NVIDIA GB200"}`, f, e, g, g, g),
					endpoint: fmt.Sprintf("decode_node_%d", e),
					host:     fmt.Sprintf("node-%d", e),
					gpu:      fmt.Sprint(g),
					value:    float64(f * 10),
				})
			}
		}
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "scraper_endpoint", Type: arrow.BinaryTypes.String},
		{Name: "metric_name", Type: arrow.BinaryTypes.String},
		{Name: "metric_value", Type: arrow.PrimitiveTypes.Float64},
		{Name: "histogram_bucket_lower", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "histogram_bucket_upper", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "histogram_sum", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "histogram_count", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "time_since_start", Type: arrow.PrimitiveTypes.Float64},
		{Name: "timestamp_ns", Type: arrow.PrimitiveTypes.Int64},
		{Name: "gpu", Type: arrow.BinaryTypes.String},
		{Name: "hostname", Type: arrow.BinaryTypes.String},
		{Name: "worker_index", Type: arrow.BinaryTypes.String},
		{Name: "worker_role", Type: arrow.BinaryTypes.String},
	}, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	writeParquetRecords(b, path, schema, func(w *pqarrow.FileWriter) {
		for row := 0; row < benchRows; {
			for i := 0; i < batchRows && row < benchRows; i, row = i+1, row+1 {
				s := &all[row%len(all)]
				scrape := int64(row / len(all))
				s.value += float64(rng.IntN(3) - 1)
				rb.Field(0).(*array.StringBuilder).Append(s.endpoint)
				rb.Field(1).(*array.StringBuilder).Append(s.name)
				rb.Field(2).(*array.Float64Builder).Append(s.value)
				for c := 3; c <= 6; c++ {
					rb.Field(c).AppendNull()
				}
				rb.Field(7).(*array.Float64Builder).Append(float64(scrape))
				rb.Field(8).(*array.Int64Builder).Append(t0 + scrape*sec + int64(rng.IntN(1000)))
				rb.Field(9).(*array.StringBuilder).Append(s.gpu)
				rb.Field(10).(*array.StringBuilder).Append(s.host)
				rb.Field(11).(*array.StringBuilder).Append(s.gpu)
				rb.Field(12).(*array.StringBuilder).Append("decode")
			}
			rec := rb.NewRecord()
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
	})
}

// heapSink counts points and samples the live heap while the read runs.
type heapSink struct {
	points, calls int
	peak          uint64
	ms            runtime.MemStats
}

func (s *heapSink) Series(*SeriesInfo) error { return nil }

func (s *heapSink) Points(p []Point) error {
	s.points += len(p)
	if s.calls%8 == 0 {
		runtime.ReadMemStats(&s.ms)
		s.peak = max(s.peak, s.ms.HeapInuse)
	}
	s.calls++
	return nil
}

// BenchmarkReadParquet5M reads a 5M-row capture through a sink and reports
// rows/s, time and allocated bytes per row, and the peak in-use heap
// sampled during the read.
func BenchmarkReadParquet5M(b *testing.B) {
	dir := benchCapture(b)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	cpu0 := cpuNS()
	var peak uint64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		c, err := Discover(dir, true)
		if err != nil {
			b.Fatal(err)
		}
		sink := &heapSink{}
		if _, err := Read(c, Options{}, sink); err != nil {
			b.Fatal(err)
		}
		if sink.points != benchRows {
			b.Fatalf("points = %d, want %d", sink.points, benchRows)
		}
		peak = max(peak, sink.peak)
	}
	runtime.ReadMemStats(&after)
	rows := float64(benchRows) * float64(b.N)
	b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
	// CPU time per row, of every goroutine: on a shared machine wall time
	// is mostly waiting.
	b.ReportMetric(float64(cpuNS()-cpu0)/rows, "cpu-ns/row")
	// The garbage per row is what sets the collector's headroom, and with it
	// a build's peak memory.
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/rows, "B/row")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// cpuNS is the user and system CPU time of the process so far.
func cpuNS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
