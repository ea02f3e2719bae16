package tachometer

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

const (
	t0  = int64(1789642711000000000) // a run origin, UTC epoch ns
	sec = int64(1e9)
)

// decodeRow is the synthetic TRT-LLM decode row of the reference tests.
func decodeRow(ts int64, value float64, rank string) Row {
	return Row{
		TS: ts, Name: `trtllm_num_requests_running{model="test"}`, Value: value, Endpoint: "decode",
		Extra: map[string]string{
			"hostname": "decode-host", "gpu": "0", "worker_role": "decode", "worker_index": "0",
			"worker_process": "epoch-decode", "rank": rank,
		},
	}
}

func window(from, to int64) *Window { return &Window{StartNS: t0 + from*sec, EndNS: t0 + to*sec} }

func TestReadFinalTailAndShards(t *testing.T) {
	root := filepath.Join(t.TempDir(), "tachometer", "local")
	final := []Row{decodeRow(t0+1*sec, 1, "0"), decodeRow(t0+3*sec, 2, "0"), decodeRow(t0+3*sec, 99, "1"), decodeRow(t0+8*sec, 4, "0")}
	writeParquet(t, filepath.Join(root, "final.parquet"), final, layoutOpts{clean: true})
	// A compacted shard that final.parquet supersedes: its value must not appear.
	writeParquet(t, filepath.Join(root, "out-1.parquet"), []Row{decodeRow(t0+2*sec, 555, "0")}, layoutOpts{})
	// The tail repeats the last compacted row and adds one beyond it.
	writeArrowStream(t, filepath.Join(root, "current.arrow"), []Row{decodeRow(t0+8*sec, 4, "0"), decodeRow(t0+9*sec, 5, "0")}, layoutOpts{})
	// The upload mirror holds a conflicting copy that must be ignored.
	writeParquet(t, filepath.Join(filepath.Dir(root), "upload", "final.parquet"), []Row{decodeRow(t0+1*sec, 777, "0")}, layoutOpts{})

	sink, res := read(t, root, Options{Window: window(0, 10)})
	if len(sink.series) != 2 {
		t.Fatalf("series = %+v, want rank 0 and rank 1", sink.series)
	}
	if got := sink.series[0]; got.Rank != "0" || got.RankKind != "rank" || got.Worker != "decode-0" ||
		got.Host != "decode-host" || got.HostSource != HostFromColumn || got.WorkerProcess != "epoch-decode" {
		t.Errorf("series 0 identity = %+v", got)
	}
	var values []float64
	for _, p := range sink.pointsOf(0) {
		values = append(values, p.Value)
	}
	if want := []float64{1, 2, 4, 5}; !reflect.DeepEqual(values, want) {
		t.Errorf("rank 0 values = %v, want %v", values, want)
	}
	if res.Audit.Duplicates != 1 || res.Audit.Points != 5 || res.Audit.RowsScanned != 6 {
		t.Errorf("audit = %+v, want 1 duplicate, 5 points, 6 rows", res.Audit)
	}
	// The surviving copy of the duplicated sample is the earlier evidence.
	last := sink.pointsOf(0)[2]
	if last.Source != 0 || last.Row != 3 {
		t.Errorf("duplicate kept source %d row %d, want final.parquet row 3", last.Source, last.Row)
	}
	if got := res.Series[0].Sources; !reflect.DeepEqual(got, []int32{0, 1}) {
		t.Errorf("sources = %v", got)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings = %q", res.Warnings)
	}
	f := familyByName(t, res, "trtllm_num_requests_running")
	if f.SeriesCount != 2 || f.Samples != 5 || f.Rows != 6 || f.Description.Title != "Running requests" {
		t.Errorf("family = %+v", f)
	}
	for _, l := range sink.series[0].Labels {
		if l.Key == "metric_name_clean" {
			t.Error("metric_name_clean became a label")
		}
	}
}

func TestArrowTailOverlapIsCheckedExactly(t *testing.T) {
	// The tail starts before the end of final.parquet: every overlapping
	// sample is compared, not only the latest one.
	root := t.TempDir()
	var final, tail []Row
	for i := int64(0); i < 10; i++ {
		final = append(final, decodeRow(t0+i*sec, float64(i), "0"))
	}
	for i := int64(5); i < 12; i++ {
		v := float64(i)
		if i == 6 {
			v = 60 // a conflicting value at 6 s
		}
		tail = append(tail, decodeRow(t0+i*sec, v, "0"))
	}
	writeParquet(t, filepath.Join(root, "final.parquet"), final, layoutOpts{})
	writeArrowStream(t, filepath.Join(root, "current.arrow"), tail, layoutOpts{})
	sink, res := read(t, root, Options{})
	if res.Audit.Duplicates != 4 || res.Audit.Unchecked != 0 || res.Audit.ConflictingSamples != 2 {
		t.Fatalf("audit = %+v, want 4 duplicates (5,7,8,9 s), 2 conflicting samples", res.Audit)
	}
	if got := res.Series[0].ConflictTimestampsNS; !reflect.DeepEqual(got, []int64{t0 + 6*sec}) {
		t.Errorf("conflicts = %v", got)
	}
	if n := len(sink.points); n != 13 {
		t.Errorf("points = %d, want 10 + conflict + 2 new", n)
	}
	if !strings.Contains(familyByName(t, res, "trtllm_num_requests_running").Description.Quality, "Conflicting raw values") {
		t.Error("conflict not noted in the catalog quality")
	}
}

func TestDuplicatesAndConflicts(t *testing.T) {
	root := t.TempDir()
	rows := []Row{
		decodeRow(t0+1*sec, 0, "0"),
		decodeRow(t0+1*sec, math.Copysign(0, -1), "0"), // -0.0 equals 0.0: duplicate
		decodeRow(t0+2*sec, 7, "0"),
		decodeRow(t0+2*sec, 8, "0"), // conflict
		decodeRow(t0+2*sec, 7, "0"), // duplicate of the first value
		decodeRow(t0+2*sec, 9, "0"), // third distinct value
		decodeRow(t0+3*sec, 1, "0"),
	}
	// Label order inside the raw name must not split the series.
	rows = append(rows, Row{TS: t0 + 4*sec, Name: `trtllm_num_requests_running{model="test"}`, Value: 2, Endpoint: "decode", Extra: rows[0].Extra})
	writeParquet(t, filepath.Join(root, "final.parquet"), rows, layoutOpts{})
	sink, res := read(t, root, Options{})
	st := res.Series[0]
	if st.Duplicates != 2 || st.ConflictingSamples != 3 || !reflect.DeepEqual(st.ConflictTimestampsNS, []int64{t0 + 2*sec}) {
		t.Errorf("stats = %+v", st)
	}
	var rowsKept []int64
	for _, p := range sink.points {
		rowsKept = append(rowsKept, p.Row)
	}
	if want := []int64{0, 2, 3, 5, 6, 7}; !reflect.DeepEqual(rowsKept, want) {
		t.Errorf("kept rows %v, want %v", rowsKept, want)
	}
}

func TestLabelOrderDoesNotSplitSeries(t *testing.T) {
	root := t.TempDir()
	rows := []Row{
		{TS: t0, Name: `sglang:token_usage{a="1",b="2"}`, Value: 0.5, Endpoint: "prefill"},
		{TS: t0 + sec, Name: `sglang:token_usage{b="2", a="1"}`, Value: 0.6, Endpoint: "prefill"},
		{TS: t0 + sec, Name: `sglang:token_usage{a="1",b="3"}`, Value: 0.7, Endpoint: "prefill"},
	}
	writeParquet(t, filepath.Join(root, "final.parquet"), rows, layoutOpts{clean: true})
	sink, _ := read(t, root, Options{})
	if len(sink.series) != 2 {
		t.Fatalf("series = %+v, want 2", sink.series)
	}
	want := []Label{{"metric.a", "1"}, {"metric.b", "2"}, {"scraper_endpoint", "prefill"}}
	if !reflect.DeepEqual(sink.series[0].Labels, want) {
		t.Errorf("labels = %+v, want %+v", sink.series[0].Labels, want)
	}
}

func TestHistogramIdentity(t *testing.T) {
	root := t.TempDir()
	var rows []Row
	for i, ts := range []int64{t0, t0 + sec} {
		n := float64(i)
		sum, count := ptr(1.5+n), ptr(3+n)
		rows = append(rows,
			Row{TS: ts, Name: `dynamo_frontend_time_to_first_token_seconds_bucket{le="0.1",model="m"}`, Value: 1 + n, Endpoint: "frontend", Upper: ptr(0.1), Sum: sum, Count: count},
			Row{TS: ts, Name: `dynamo_frontend_time_to_first_token_seconds_bucket{le="1",model="m"}`, Value: 2 + n, Endpoint: "frontend", Upper: ptr(1), Sum: sum, Count: count},
			Row{TS: ts, Name: `dynamo_frontend_time_to_first_token_seconds_bucket{le="+Inf",model="m"}`, Value: 3 + n, Endpoint: "frontend", Sum: sum, Count: count},
			// A bound only in the column keeps its float precision.
			Row{TS: ts, Name: `dynamo_frontend_request_duration_seconds{model="m"}`, Value: 4 + n, Endpoint: "frontend", Upper: ptr(1.00000001)},
		)
	}
	writeParquet(t, filepath.Join(root, "final.parquet"), rows, layoutOpts{})
	sink, res := read(t, root, Options{})
	if got := familyNames(res); !reflect.DeepEqual(got, []string{"dynamo_frontend_request_duration_seconds", "dynamo_frontend_time_to_first_token_seconds"}) {
		t.Fatalf("families = %v (sum/count must not create families)", got)
	}
	var les []string
	for _, s := range sink.series {
		if !s.Histogram {
			t.Errorf("series %s is not a histogram", s.RawName)
		}
		for _, l := range s.Labels {
			if l.Key == "metric.le" {
				les = append(les, l.Value)
			}
		}
	}
	if want := []string{"0.1", "1.0", "+Inf", "1.00000001"}; !reflect.DeepEqual(les, want) {
		t.Errorf("bounds = %q, want %q", les, want)
	}
	if len(sink.points) != 8 {
		t.Errorf("points = %d, want 8", len(sink.points))
	}
	d := familyByName(t, res, "dynamo_frontend_time_to_first_token_seconds").Description
	if d.ValueKind != Histogram || d.Unit != "observations" || d.ObservationUnit != "s" || !d.Counter {
		t.Errorf("histogram description = %+v", d)
	}
}

func TestNonFiniteAndWindow(t *testing.T) {
	root := t.TempDir()
	rows := []Row{
		{TS: t0 + sec, Name: "gpu_util", Value: math.NaN(), Endpoint: "gpu_node"},
		{TS: t0 + 2*sec, Name: "gpu_util", Value: math.Inf(1), Endpoint: "gpu_node"},
		{TS: t0 + 3*sec, Name: "gpu_util", NullVal: true, Endpoint: "gpu_node"},
		{TS: t0 + 4*sec, Name: "load1", Value: 3, Endpoint: "node"},
		{TS: t0 + 100*sec, Name: "memory_MemAvailable_bytes", Value: 1e9, Endpoint: "node"}, // outside the window
		{TS: t0 + 100*sec, Name: "load1", Value: math.NaN(), Endpoint: "node"},              // outside: not counted non-finite
	}
	writeArrowFile(t, filepath.Join(root, "final.parquet"), rows, layoutOpts{})
	sink, res := read(t, root, Options{Window: window(0, 10)})
	if res.Audit.NonFinite != 3 || res.Audit.OutOfWindow != 2 || res.Audit.Points != 1 {
		t.Errorf("audit = %+v", res.Audit)
	}
	if len(sink.series) != 1 {
		t.Errorf("series = %+v, want only load1", sink.series)
	}
	for _, name := range []string{"gpu_util", "memory_MemAvailable_bytes"} {
		if f := familyByName(t, res, name); f.Samples != 0 || f.SeriesCount != 0 || f.Rows == 0 {
			t.Errorf("%s = %+v, want catalogued with no samples", name, f)
		}
	}
}

func TestRequiredColumns(t *testing.T) {
	for _, col := range requiredColumns {
		t.Run(col, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "final.parquet")
			opts := layoutOpts{omit: []string{col}}
			if col == colTimestamp {
				opts = layoutOpts{noTimestamp: true, omit: []string{colSinceStart}}
			}
			writeParquet(t, path, []Row{decodeRow(t0, 1, "0")}, opts)
			err := readErr(t, root, Options{})
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), col) {
				t.Fatalf("err = %v, want one naming %s and %s", err, path, col)
			}
		})
	}
}

func TestOlderCaptureWithoutTimestamp(t *testing.T) {
	// Older writers stored float32 values and only time_since_start, which
	// is relative to an unrecorded writer start: such a file is left unread
	// with the reason, and the rest of the capture is read.
	root := t.TempDir()
	old := filepath.Join(root, "out-1.parquet")
	writeParquet(t, old, []Row{decodeRow(t0, 1, "0")}, layoutOpts{noTimestamp: true, float32: true})
	tail := filepath.Join(root, "current.arrow")
	writeArrowFile(t, tail, []Row{decodeRow(t0+sec, 2, "0")}, layoutOpts{})
	c, err := Discover(root, true)
	if err != nil {
		t.Fatal(err)
	}
	var sink collector
	res, err := Read(c, Options{}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 1 || c.Files[0].Path != tail {
		t.Fatalf("files read: %+v", c.Files)
	}
	if len(sink.points) != 1 || sink.points[0].Value != 2 {
		t.Fatalf("points %+v, want the tail's one", sink.points)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, "/"+filepath.Base(old)+" was not read") && strings.Contains(w, "cannot be aligned")
	}
	if !found {
		t.Fatalf("no warning names %s and why: %q", old, res.Warnings)
	}
}

func TestFloat32Capture(t *testing.T) {
	root := t.TempDir()
	rows := []Row{
		{TS: t0, Name: `x_bucket{le="0.1"}`, Value: 0.25, Endpoint: "e", Upper: ptr(0.1)},
		{TS: t0, Name: `x_bucket{le="+Inf"}`, Value: 0.5, Endpoint: "e"},
	}
	writeParquet(t, filepath.Join(root, "final.parquet"), rows, layoutOpts{float32: true})
	sink, _ := read(t, root, Options{})
	if len(sink.points) != 2 || sink.points[0].Value != 0.25 {
		t.Fatalf("points = %+v", sink.points)
	}
}

func TestRowErrors(t *testing.T) {
	tests := []struct {
		name string
		rows []Row
		want string
	}{
		{"unterminated labels", []Row{{Name: `a{b="c"`}}, "unterminated metric labels"},
		{"unterminated quote", []Row{{Name: `a{b="c}`}}, "unterminated quoted label"},
		{"duplicate label", []Row{{Name: `a{b="1",b="2"}`}}, "duplicate label"},
		{"missing comma", []Row{{Name: `a{b="1" c="2"}`}}, "missing comma"},
		{"malformed", []Row{{Name: `a{=1}`}}, "malformed metric labels"},
		{"empty name", []Row{{Name: ""}}, "missing metric name"},
		{"labels only", []Row{{Name: `{a="1"}`}}, "missing metric name"},
		{"nan bound", []Row{{Name: `h_bucket{le="NaN"}`}}, "invalid histogram bound"},
		{"text bound", []Row{{Name: `h_bucket{le="fast"}`}}, "invalid histogram bound"},
		{"column nan bound", []Row{{Name: `h_bucket`, Upper: ptr(math.NaN())}}, "invalid histogram_bucket_upper"},
		{"conflicting bounds", []Row{{Name: `h_bucket{le="0.5"}`, Upper: ptr(1)}}, "conflicting histogram bounds"},
		{"mixed family", []Row{{Name: `h_bucket{le="1"}`}, {Name: "h"}}, "mixes scalar values and histogram buckets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "final.parquet")
			rows := []Row{{TS: t0, Name: "fine", Value: 1, Endpoint: "e"}}
			for _, r := range tt.rows {
				// Far outside the window: validation covers every row.
				r.TS, r.Endpoint = t0+1000*sec, "e"
				rows = append(rows, r)
			}
			writeParquet(t, path, rows, layoutOpts{})
			err := readErr(t, root, Options{Window: window(0, 10)})
			wantRow := len(rows) - 1
			if err == nil || !strings.Contains(err.Error(), tt.want) ||
				!strings.Contains(err.Error(), path+": row "+strconv.Itoa(wantRow)+":") {
				t.Fatalf("err = %v, want %q at %s row %d", err, tt.want, path, wantRow)
			}
		})
	}
}

func TestContentSniffingIgnoresSuffix(t *testing.T) {
	rows := []Row{decodeRow(t0, 1, "0"), decodeRow(t0+sec, 2, "0")}
	tests := []struct {
		name  string
		file  string
		write func(testing.TB, string, []Row, layoutOpts)
		want  Encoding
	}{
		{"arrow file named parquet", "final.parquet", writeArrowFile, EncodingArrowFile},
		{"arrow stream named parquet", "out-1.parquet", writeArrowStream, EncodingArrowStream},
		{"parquet named arrow", "current.arrow", writeParquet, EncodingParquet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.write(t, filepath.Join(root, tt.file), rows, layoutOpts{})
			sink, res := read(t, root, Options{})
			if len(sink.points) != 2 || res.Files[0].Encoding != tt.want {
				t.Fatalf("points = %d, encoding = %s; want 2, %s", len(sink.points), res.Files[0].Encoding, tt.want)
			}
		})
	}
}

func TestUnorderedRowsAreCounted(t *testing.T) {
	root := t.TempDir()
	rows := []Row{decodeRow(t0+2*sec, 2, "0"), decodeRow(t0+1*sec, 1, "0"), decodeRow(t0+1*sec, 1, "0")}
	writeParquet(t, filepath.Join(root, "final.parquet"), rows, layoutOpts{})
	sink, res := read(t, root, Options{})
	if res.Audit.Unchecked != 2 || len(sink.points) != 3 {
		t.Fatalf("audit = %+v, points = %d; rows before the series' latest time are delivered and counted", res.Audit, len(sink.points))
	}
}

func TestIdentityFromConfigAndLabels(t *testing.T) {
	root := t.TempDir()
	rows := []Row{
		// Host and worker from the scraper configuration, rank from an inline label.
		{TS: t0, Name: `sglang:num_running_reqs{global_rank="3",rank="1"}`, Value: 4, Endpoint: "prefill_node", Extra: map[string]string{"gpu": "0"}},
		// A frontend endpoint without worker metadata.
		{TS: t0, Name: "dynamo_frontend_inflight_requests", Value: 2, Endpoint: "frontend", Extra: map[string]string{"gpu": "7"}},
	}
	writeParquet(t, filepath.Join(root, "final.parquet"), rows, layoutOpts{extraTypes: map[string]arrow.DataType{"gpu": arrow.PrimitiveTypes.Int64}})
	cfg := map[string]Endpoint{"prefill_node": {
		Hostname: "node-a",
		GPUs:     map[string]GPU{"0": {WorkerRole: "Aggregated", WorkerIndex: "2", WorkerProcess: "p-1"}},
	}}
	sink, _ := read(t, root, Options{Endpoints: cfg})
	got := sink.series[0]
	if got.Host != "node-a" || got.HostSource != HostFromConfig || got.Worker != "agg-2" || got.WorkerProcess != "p-1" ||
		got.Rank != "3" || got.RankKind != "global_rank" || got.GPU != "0" {
		t.Errorf("config identity = %+v", got)
	}
	if fe := sink.series[1]; fe.Worker != "frontend" || fe.HostSource != HostUnknown || fe.Rank != "" || fe.GPU != "7" {
		t.Errorf("frontend identity = %+v", fe)
	}
}

func TestDictionaryNames(t *testing.T) {
	root := t.TempDir()
	rows := []Row{decodeRow(t0, 1, "0"), decodeRow(t0+sec, 2, "1")}
	writeParquet(t, filepath.Join(root, "final.parquet"), rows, layoutOpts{dictNames: true})
	sink, _ := read(t, root, Options{})
	if len(sink.series) != 2 || sink.series[0].RawName != `trtllm_num_requests_running{model="test"}` {
		t.Fatalf("series = %+v", sink.series)
	}
}

func TestTimeRange(t *testing.T) {
	root := t.TempDir()
	writeParquet(t, filepath.Join(root, "final.parquet"), []Row{decodeRow(t0+5*sec, 1, "0"), decodeRow(t0+2*sec, 1, "0")}, layoutOpts{})
	writeArrowStream(t, filepath.Join(root, "current.arrow"), []Row{decodeRow(t0+9*sec, 1, "0")}, layoutOpts{})
	c, err := Discover(root, true)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, ok, err := c.TimeRange()
	if err != nil || !ok || lo != t0+2*sec || hi != t0+9*sec {
		t.Fatalf("TimeRange = %d, %d, %v, %v", lo-t0, hi-t0, ok, err)
	}
}

// failingSink stops the read on the first series.
type failingSink struct{ collector }

var errStop = errors.New("stop")

func (*failingSink) Series(*SeriesInfo) error { return errStop }

func TestSinkErrorStopsRead(t *testing.T) {
	root := t.TempDir()
	writeParquet(t, filepath.Join(root, "final.parquet"), []Row{decodeRow(t0, 1, "0")}, layoutOpts{})
	c, err := Discover(root, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(c, Options{}, &failingSink{}); !errors.Is(err, errStop) {
		t.Fatalf("err = %v, want the sink's error", err)
	}
}

func TestDamagedFiles(t *testing.T) {
	rows := []Row{decodeRow(t0, 1, "0"), decodeRow(t0+sec, 2, "0")}
	tests := []struct {
		name  string
		file  string
		write func(testing.TB, string, []Row, layoutOpts)
		cut   int // bytes removed from the end
		want  string
	}{
		{"parquet without footer", "final.parquet", writeParquet, 8, "final.parquet"},
		{"arrow file without footer", "final.parquet", writeArrowFile, 10, "final.parquet"},
		{"stream without end marker", "current.arrow", writeArrowStream, 8, "end-of-stream marker"},
		{"stream cut mid-message", "current.arrow", writeArrowStream, 40, "current.arrow"},
		{"empty file", "current.arrow", writeArrowStream, -1, "empty file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, tt.file)
			tt.write(t, path, rows, layoutOpts{})
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.cut < 0 {
				data = nil
			} else {
				data = data[:len(data)-tt.cut]
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			err = readErr(t, root, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want one naming %s and %q", err, path, tt.want)
			}
		})
	}
}
