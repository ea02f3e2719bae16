package synth

import (
	"bytes"
	"github.com/dsight/dsight/internal/model"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/aiperf"
	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/otlp"
	"github.com/dsight/dsight/internal/sglang"
	"github.com/dsight/dsight/internal/sourcename"
	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/internal/tokenspeed"
)

// The parsers of the repository are the judges here: every file a run
// writes must parse with zero errors, and what they read back must agree
// across sources (the same request ids, workers and hosts).

// view is a written run with the plan it came from and what every parser
// made of it.
type view struct {
	dir      string
	c        Config
	s        Summary
	p        *Plan
	sv       *serving
	byClient map[string]int // client id → request index
	bridges  []model.Bridge
	server   map[string]int // bridged Dynamo id → request index
	bindings map[string][]binding
	spans    *otlp.Result
}

type binding struct {
	model.ProcessBinding
	worker string // from the file name
}

func generate(t *testing.T, c Config) *view {
	t.Helper()
	dir, s := writeTestRun(t, c)
	c, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(c)
	if err != nil {
		t.Fatal(err)
	}
	v := &view{dir: dir, c: c, s: s, p: p, sv: newServing(p), byClient: map[string]int{}, server: map[string]int{}, bindings: map[string][]binding{}}
	for i := range p.Requests {
		v.byClient[v.sv.clients[i]] = i
	}
	return v
}

func (v *view) files(kind string) []File {
	var out []File
	for _, f := range v.s.Files {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func (v *view) open(t *testing.T, f File) *os.File {
	t.Helper()
	r, err := os.Open(filepath.Join(v.dir, f.Path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// countLines counts the lines of a file containing every one of subs.
func (v *view) countLines(t *testing.T, f File, subs ...string) int {
	t.Helper()
	n := 0
	for _, line := range bytes.Split(mustRead(t, filepath.Join(v.dir, f.Path)), []byte{'\n'}) {
		all := len(line) > 0
		for _, s := range subs {
			all = all && bytes.Contains(line, []byte(s))
		}
		if all {
			n++
		}
	}
	return n
}

// attemptsReceived counts the Dynamo requests the frontend received, and
// the worker admissions, as the timelines place them.
func (v *view) attemptsReceived() (received, admitted int) {
	tl := newTimeliner(v.sv)
	var att []attempt
	for i := range v.p.Requests {
		att = tl.attempts(i, att[:0])
		for k := range att {
			if att[k].received() {
				received++
				for role := range 2 {
					if att[k].admitted(role) {
						admitted++
					}
				}
			}
		}
	}
	return received, admitted
}

// readFrontends checks every frontend log and gathers the bridges.
func (v *view) readFrontends(t *testing.T) {
	t.Helper()
	for _, f := range v.files(KindFrontend) {
		log, err := dynamolog.ScanFrontend(v.open(t, f), f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if log.Undecodable != 0 || log.Lines != f.Lines {
			t.Errorf("%s: %d undecodable of %d lines (summary %d)", f.Path, log.Undecodable, log.Lines, f.Lines)
		}
		json := strings.HasSuffix(f.Path, "_1.out")
		if want := int64(0); json {
			want = 2 * int64(len(log.Bridges)) // SPAN_CREATED and SPAN_CLOSED carry only the client id
			if log.Unbridged != want {
				t.Errorf("%s: %d unbridged candidate lines, want %d", f.Path, log.Unbridged, want)
			}
		} else if log.Unbridged != want {
			t.Errorf("%s: %d unbridged candidate lines, want 0", f.Path, log.Unbridged)
		}
		for _, b := range log.Bridges {
			i, ok := v.byClient[b.ClientID]
			if !ok {
				t.Fatalf("%s: bridge from unknown client id %q", b.Ref, b.ClientID)
			}
			if b.Repeats != 1 || b.ServerKey != "dynamo.request.id" || b.Time == nil || b.Time.UnixNS == nil {
				t.Errorf("%s: bridge %+v: want one repeat (received, completed), dynamo.request.id and an exact time", b.Ref, b)
			}
			if prev, seen := v.server[b.ServerID]; seen && prev != i {
				t.Errorf("%s: server id %s bridged from two clients", b.Ref, b.ServerID)
			}
			v.server[b.ServerID] = i
		}
		v.bridges = append(v.bridges, log.Bridges...)
	}
	dynamolog.MarkAmbiguity(v.bridges)
}

// readWorkers checks the Dynamo bindings of every worker log.
func (v *view) readWorkers(t *testing.T) {
	t.Helper()
	for _, f := range v.files(KindWorker) {
		id, ok := sourcename.Parse(filepath.Base(f.Path))
		if !ok {
			t.Fatalf("%s: not a worker log name", f.Path)
		}
		log, err := dynamolog.ScanWorker(v.open(t, f), f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if log.Undecodable != 0 || log.IncompleteBindings != 0 || log.Lines != f.Lines {
			t.Errorf("%s: %d undecodable, %d incomplete bindings, %d lines (summary %d)", f.Path, log.Undecodable, log.IncompleteBindings, log.Lines, f.Lines)
		}
		for _, b := range log.Bindings {
			if b.Host != id.Host || b.Role != id.Role || b.Repeats != 0 {
				t.Errorf("%s: binding %+v does not match the file's host %s and role %s", b.Ref, b, id.Host, id.Role)
			}
			if _, ok := v.server[b.ServerID]; !ok {
				t.Errorf("%s: binding of unbridged request %s", b.Ref, b.ServerID)
			}
			v.bindings[b.ServerID] = append(v.bindings[b.ServerID], binding{b, id.Worker})
		}
	}
}

func (v *view) readSpans(t *testing.T) {
	t.Helper()
	res, err := otlp.ReadAll(os.DirFS(filepath.Join(v.dir, "logs")), otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(res.Spans)) != v.s.Spans || len(res.Invalid) != 0 {
		t.Fatalf("otel: %d spans (%d invalid), summary says %d", len(res.Spans), len(res.Invalid), v.s.Spans)
	}
	v.spans = res
}

// lifecycle is one Dynamo request's spans by name (and role).
type lifecycle map[string]model.Span

func (v *view) lifecycles(t *testing.T) map[string]lifecycle {
	t.Helper()
	out := map[string]lifecycle{}
	traceOf := map[string]string{}
	for _, sp := range v.spans.Spans {
		id, ok := sp.Attrs.String("dynamo.request.id")
		if !ok {
			id, ok = sp.Attrs.String("request_id")
		}
		if ok {
			traceOf[sp.TraceID] = id
		}
	}
	for _, sp := range v.spans.Spans {
		id, ok := traceOf[sp.TraceID]
		if !ok {
			t.Fatalf("%s: trace %s names no request", sp.Ref, sp.TraceID)
		}
		if out[id] == nil {
			out[id] = lifecycle{}
		}
		key := sp.Name
		if key == "worker.admission" || key == "request.dispatch" {
			role, _ := sp.Attrs.String("dynamo.operation.role")
			key += "@" + role
		}
		if strings.HasPrefix(sp.Name, "kv_router.") {
			// Two of each per request; the route's phase tells them apart,
			// and the selection precedes its route.
			key += "#" + strconv1(len(filterKeys(out[id], key)))
		}
		out[id][key] = sp
	}
	return out
}

func filterKeys(l lifecycle, prefix string) []string {
	var keys []string
	for k := range l {
		if strings.HasPrefix(k, prefix+"#") {
			keys = append(keys, k)
		}
	}
	return keys
}

func strconv1(n int) string { return string(rune('0' + n)) }

// milestones returns the candidate milestones of a request's spans in
// causal order: preprocessing, then per role route selected, transport
// ready, stream created (and prefill handled), then the first SSE event.
func milestones(l lifecycle) []int64 {
	ends := func(name string) int64 { return l[name].EndNS }
	return []int64{
		ends("request.preprocessing"),
		ends("kv_router.select_worker#0"),
		ends("worker.admission@prefill"),
		ends("request.dispatch@prefill"),
		ends("worker.operation.prefill"),
		ends("kv_router.select_worker#1"),
		ends("worker.admission@decode"),
		ends("request.dispatch@decode"),
		l["response.streaming"].StartNS,
	}
}

func TestServerSourcesParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Config
		// decodeEngines are the engines of the decode workers, in order.
		decodeEngines []engineKind
	}{
		{"sglang+tokenspeed", Config{Seed: 5, Requests: 800, Concurrency: 32, Hostile: true, Timezone: "America/Los_Angeles",
			Sources: AllSources() &^ SourceAgentPerf}, []engineKind{engineSGLang, engineTokenSpeed, engineTokenSpeed}},
		{"tokenspeed", Config{Seed: 6, Requests: 300, Sources: SourceAIPerf | SourceFrontend | SourceOTel | SourceWorkers | SourceTokenSpeed | SourceTachometer},
			[]engineKind{engineTokenSpeed, engineTokenSpeed}},
		{"sglang", Config{Seed: 7, Requests: 500, Concurrency: 40, Timezone: "Asia/Tokyo"},
			[]engineKind{engineSGLang, engineSGLang, engineSGLang}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := generate(t, tc.c)
			var engines []engineKind
			for _, w := range v.sv.d.decode {
				engines = append(engines, v.sv.d.workers[w].engine)
			}
			if !slices.Equal(engines, tc.decodeEngines) {
				t.Fatalf("decode engines %v, want %v", engines, tc.decodeEngines)
			}
			v.checkAll(t)
		})
	}
}

// checkAll reads every source of a run that has all but the alternative
// client.
func (v *view) checkAll(t *testing.T) {
	t.Helper()
	res, err := aiperf.Parse(v.open(t, v.files(KindAIPerf)[0]), aiperf.Options{Phase: aiperf.PhaseAll})
	if err != nil || len(res.Requests) != len(v.p.Requests) {
		t.Fatalf("aiperf: %v, %d requests", err, len(res.Requests))
	}

	v.readFrontends(t)
	received, admitted := v.attemptsReceived()
	if len(v.bridges) != received {
		t.Errorf("%d bridges, want one per received request (%d)", len(v.bridges), received)
	}
	for _, b := range v.bridges {
		i := v.byClient[b.ClientID]
		if b.ClientAmbiguous || b.ServerConflict || b.ServerID != v.sv.reqs[i].uuid {
			t.Errorf("%s: bridge %s → %s, want %s without ambiguity", b.Ref, b.ClientID, b.ServerID, v.sv.reqs[i].uuid)
		}
	}

	v.readWorkers(t)
	n := 0
	for _, bs := range v.bindings {
		n += len(bs)
	}
	if n != admitted {
		t.Errorf("%d bindings, want one per worker admission (%d)", n, admitted)
	}

	v.readSpans(t)
	v.checkLifecycles(t, true)
	v.checkLogMetrics(t, v.c.Timezone)
	v.checkCapture(t)
}

// checkLifecycles checks that every request's spans sit inside its client
// window, nest inside their parents, name the workers its bindings name,
// and (when strict) reach their milestones in order before the first token.
func (v *view) checkLifecycles(t *testing.T, strict bool) {
	t.Helper()
	for id, l := range v.lifecycles(t) {
		i, ok := v.server[id]
		if !ok {
			t.Fatalf("spans of unbridged request %s", id)
		}
		r := &v.p.Requests[i]
		s := &v.sv.reqs[i]
		for name, sp := range l {
			if s.odd == oddNone && (sp.StartNS < r.StartNS || sp.EndNS > r.EndNS) {
				t.Errorf("%s %s [%d, %d] outside the client's [%d, %d]", id, name, sp.StartNS, sp.EndNS, r.StartNS, r.EndNS)
			}
			if role, ok := sp.Attrs.String("dynamo.operation.role"); ok && role != "frontend" {
				host, _ := sp.Attrs.String("dynamo.instance.id")
				found := false
				for _, b := range v.bindings[id] {
					found = found || (b.Host == host && b.Role == role)
				}
				if !found {
					t.Errorf("%s %s ran on %s/%s, which no binding of the request names", id, name, host, role)
				}
			}
		}
		if r.Outcome != Completed || s.odd != oddNone || !strict {
			continue
		}
		ms := milestones(l)
		first := r.StartNS + r.TTFTNS
		for k := range ms {
			if ms[k] < r.StartNS || ms[k] >= first || (k > 0 && ms[k] < ms[k-1]) {
				t.Fatalf("%s: milestones %v out of order or outside [start %d, first token %d)", id, ms, r.StartNS, first)
			}
		}
		for child, parent := range map[string]string{
			"worker.admission@prefill": "kv_router.route_request#0", "worker.operation.prefill": "kv_router.route_request#0",
			"request.dispatch@prefill": "worker.operation.prefill", "response.streaming.prefill": "worker.operation.prefill",
			"worker.admission@decode": "kv_router.route_request#1", "worker.operation.decode": "kv_router.route_request#1",
			"request.dispatch@decode": "worker.operation.decode", "response.streaming.decode": "worker.operation.decode",
		} {
			c, p := l[child], l[parent]
			if c.StartNS < p.StartNS || c.EndNS > p.EndNS || c.ParentSpanID != p.SpanID && !strings.Contains(child, "@") {
				t.Errorf("%s: %s [%d, %d] not inside %s [%d, %d]", id, child, c.StartNS, c.EndNS, parent, p.StartNS, p.EndNS)
			}
		}
		if ph, _ := l["kv_router.route_request#1"].Attrs.String("phase"); ph != "Decode" {
			t.Errorf("%s: second route has phase %q", id, ph)
		}
	}
}

// checkLogMetrics reads every worker log with the SGLang and TokenSpeed
// adapters in the run's zone: every batch and ReqTimeStats line becomes a
// point inside the run, and no line is rejected.
func (v *view) checkLogMetrics(t *testing.T, zone string) {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := v.p.OriginNS-time.Minute.Nanoseconds(), v.p.EndNS()+time.Minute.Nanoseconds()
	for _, f := range v.files(KindWorker) {
		id, _ := sourcename.Parse(filepath.Base(f.Path))
		src := logmetric.SourceInfo{Path: f.Path, Worker: id.Worker, Host: id.Host, Role: id.Role}
		res, err := logmetric.Read(v.open(t, f), src, loc, sglang.Generator{}, tokenspeed.Generator{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Unaligned != 0 || res.LongLines != 0 || len(res.Warnings) != 0 {
			t.Errorf("%s: %d unaligned, %d long lines, warnings %v", f.Path, res.Unaligned, res.LongLines, res.Warnings)
		}
		points := map[string]int{}
		for _, s := range res.Series {
			points[s.Definition.Name] += len(s.Points)
			for _, p := range s.Points {
				if p.TimeNS < lo || p.TimeNS > hi {
					t.Fatalf("%s:%d: point at %d outside the run [%d, %d]: local times misaligned", f.Path, p.Line, p.TimeNS, lo, hi)
				}
			}
		}
		want := map[string]int{
			"log_sglang_running_requests":            v.countLines(t, f, " batch", "EP") + v.countLines(t, f, "TP0] Decode batch,"),
			"log_sglang_request_forward_duration_ms": v.countLines(t, f, "ReqTimeStats("),
			tokenspeed.ActiveDecodeRequests:          v.countLines(t, f, "ATTN TP RANK", "Decode batch."),
		}
		// The TokenSpeed adapter reads decode snapshots and the decode
		// batch limit; a prefill worker's lines carry neither.
		if id.Role == "decode" {
			want[tokenspeed.DecodeRequestLimit] = v.countLines(t, f, "Scheduler config:")
		}
		for name, n := range want {
			if points[name] != n {
				t.Errorf("%s: %d %s points, want %d (one per line)", f.Path, points[name], name, n)
			}
		}
		if points["log_sglang_running_requests"]+points[tokenspeed.ActiveDecodeRequests] == 0 && v.countLines(t, f, "Prefill batch.") == 0 {
			t.Errorf("%s: no batch lines", f.Path)
		}
	}
}

// pointCounter is a tachometer.Sink that keeps series and counts points.
type pointCounter struct {
	series []tachometer.SeriesInfo
	points []int
	max    []float64
}

func (c *pointCounter) Series(s *tachometer.SeriesInfo) error {
	c.series = append(c.series, *s)
	c.points = append(c.points, 0)
	c.max = append(c.max, 0)
	return nil
}

func (c *pointCounter) Points(p []tachometer.Point) error {
	for _, pt := range p {
		c.points[pt.Series]++
		c.max[pt.Series] = max(c.max[pt.Series], pt.Value)
	}
	return nil
}

func (v *view) readCapture(t *testing.T) (*pointCounter, *tachometer.Result) {
	t.Helper()
	capt, err := tachometer.Discover(filepath.Join(v.dir, "logs", tachometer.DefaultRoot), false)
	if err != nil {
		t.Fatal(err)
	}
	var sink pointCounter
	res, err := tachometer.Read(capt, tachometer.Options{}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	return &sink, res
}

// checkCapture reads the capture back: every final row is a point, the
// Arrow tail repeats the last scrapes exactly, and series name the
// workers the logs name.
func (v *view) checkCapture(t *testing.T) {
	t.Helper()
	sink, res := v.readCapture(t)
	final, tail := v.files(KindTachometerFinal)[0], v.files(KindTachometerTail)[0]
	if len(res.Files) != 2 || res.Files[0].Rows != final.Rows || res.Files[1].Rows != tail.Rows || final.Rows != v.s.MetricRows {
		t.Fatalf("capture files %+v, summary final %d tail %d", res.Files, final.Rows, tail.Rows)
	}
	if res.Audit.Points != final.Rows || res.Audit.Duplicates != tail.Rows || tail.Rows != int64(tailScrape*len(sink.series)) {
		t.Errorf("audit %+v: want every final row a point and every tail row a duplicate", res.Audit)
	}
	workers := map[string]bool{}
	for i, s := range sink.series {
		workers[s.Worker] = true
		if s.Name == "dynamo_frontend_inflight_requests" && (sink.max[i] < 1 || sink.max[i] > float64(3*v.c.Concurrency)) {
			t.Errorf("frontend in-flight peaks at %v with %d session slots", sink.max[i], v.c.Concurrency)
		}
	}
	for _, f := range v.files(KindWorker) {
		id, _ := sourcename.Parse(filepath.Base(f.Path))
		if !workers[id.Worker] {
			t.Errorf("no capture series for worker %s", id.Worker)
		}
	}
	families := len(dcgmFamilies) + 1 + 2 // DCGM, the Dynamo component gauge, the frontend's two
	engines := map[engineKind]bool{}
	for _, w := range v.sv.d.workers {
		engines[w.engine] = true
	}
	if engines[engineSGLang] {
		families += 4
	}
	if engines[engineTokenSpeed] {
		families += 3
	}
	if !workers["frontend"] || res.Audit.Families != families {
		t.Errorf("families %d, workers %v", res.Audit.Families, workers)
	}
}
