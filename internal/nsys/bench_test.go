package nsys

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/dsight/dsight/internal/nsys/nsystest"
)

// BenchmarkRead imports an export of DSIGHT_NSYS_BENCH_RANGES NVTX ranges
// (default 1,000,000) and reports the time and allocation per range. The
// reference needs ~2 s per 280,000 ranges (~7 µs a range).
func BenchmarkRead(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("DSIGHT_NSYS_BENCH_RANGES")); err == nil && v > 0 {
		n = v
	}
	e := base()
	e.Ranges = e.Ranges[:0]
	names := []string{"scheduler.recv_requests", "scheduler.run_batch", "scheduler.process_batch_result", "aten::mm"}
	for k := range n {
		s := int64(1_000_000_000) + int64(k)*100
		e.Ranges = append(e.Ranges, nsystest.Range{Start: s, End: nsystest.End(s + 90), Name: names[k%len(names)], GlobalTID: int64(1)<<56 | 42<<24 | int64(k%8)})
	}
	e.StopTime = clock + 1_000_000_000 + int64(n)*100 + 1_000
	path := filepath.Join(b.TempDir(), "h_decode_w0_profile_gpu0-1.sqlite")
	if err := nsystest.Write(path, e); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuNS()
	b.ResetTimer()
	for range b.N {
		p, err := Read(path, "bench.sqlite", Options{})
		if err != nil {
			b.Fatal(err)
		}
		if p.Counts.Rows != int64(n) {
			b.Fatalf("read %d rows", p.Counts.Rows)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/range")
	// CPU time per range: on a shared machine wall time is mostly waiting.
	b.ReportMetric(float64(cpuNS()-cpu0)/float64(b.N)/float64(n), "cpu-ns/range")
}

// cpuNS is the user and system CPU time of the process so far.
func cpuNS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkReadExport imports the export at DSIGHT_NSYS_BENCH_FILE (for
// instance a 10M-range one from `go run ./tools/gen -sources nsight
// -nsight-ranges 10000000`) with the file-format reader and with the driver
// alone; run one of the two per process to read its peak RSS.
func BenchmarkReadExport(b *testing.B) {
	path := os.Getenv("DSIGHT_NSYS_BENCH_FILE")
	if path == "" {
		b.Skip("DSIGHT_NSYS_BENCH_FILE is not set")
	}
	for _, fromFile := range []bool{true, false} {
		name := map[bool]string{true: "file", false: "driver"}[fromFile]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var rows int64
			cpu0 := cpuNS()
			for range b.N {
				p, used, err := readProfile(path, filepath.Base(path), Options{}, fromFile)
				if err != nil {
					b.Fatal(err)
				}
				if used != fromFile {
					b.Fatalf("file reader used: %v", used)
				}
				rows = p.Counts.Rows
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/range")
			b.ReportMetric(float64(cpuNS()-cpu0)/float64(b.N)/float64(rows), "cpu-ns/range")
		})
	}
}
