package synth

import (
	"fmt"
	"path"

	"github.com/dsight/dsight/internal/nsys/nsystest"
)

// Nsight Systems SQLite exports, one per frontend and per worker process,
// under logs/nsys/. A frontend records preprocess/route/transport ranges for
// each request it served and CPU samples of its process; a worker records
// one scheduler iteration after another over the run (SGLang scheduler.*
// stages or TokenSpeed forward steps), NsightRanges ranges in all when set.
// Each export has its own session anchor a few seconds before the run, and
// its thread ids carry a high virtual-machine byte, so they exceed 2^53.

// KindNsight is the file kind of an Nsight export.
const KindNsight = "nsight"

// NsightDir holds the exports, relative to the run directory.
func NsightDir() string { return path.Join("logs", "nsys") }

// nsightLead is how long before the run each capture starts.
const nsightLead = 2_000_000_000

// systemClockNS is the system clock at session start (any value: the
// export's ANALYSIS_DETAILS times are on this clock).
const systemClockNS = 7_000_000_000

// packTID packs an OS pid and tid as Nsight's globalTid, with a high byte
// set so the value exceeds 2^53.
func packTID(pid, tid int) int64 { return int64(1)<<56 | int64(pid)<<24 | int64(tid) }

func (sv *serving) nsightCapture() nsystest.Export {
	p := sv.p
	epoch := p.OriginNS - nsightLead
	dur := p.EndNS() - p.OriginNS + 2*nsightLead
	return nsystest.Export{EpochNS: epoch, SystemClockNS: systemClockNS, StartTime: systemClockNS, StopTime: systemClockNS + dur}
}

// nsightFrontend is frontend i's export.
func (sv *serving) nsightFrontend(i int) nsystest.Export {
	e := sv.nsightCapture()
	fe := sv.d.frontends[i]
	e.Host = fe.host
	main, io := packTID(fe.pid, fe.pid), packTID(fe.pid, fe.pid+1)
	e.Threads = []nsystest.Thread{{GlobalTID: main, Name: "dynamo-frontend"}, {GlobalTID: io, Name: "tokio-runtime-w"}}
	at := func(t int64) int64 { return t - e.EpochNS }
	for k := range sv.reqs {
		if int(sv.reqs[k].frontend) != i {
			continue
		}
		s := at(sv.p.Requests[k].StartNS)
		e.Ranges = append(e.Ranges,
			nsystest.Range{Start: s, End: nsystest.End(s + 800_000), Name: "preprocess.tokenize", GlobalTID: main},
			nsystest.Range{Start: s + 800_000, End: nsystest.End(s + 1_000_000), Name: "route.select_worker", GlobalTID: main},
			nsystest.Range{Start: s + 1_000_000, End: nsystest.End(s + 1_300_000), Name: "transport.send", GlobalTID: io},
			// Outside every imported category: stays in the export.
			nsystest.Range{Start: s, End: nsystest.End(s + 50_000), Name: "http.parse", GlobalTID: io},
		)
	}
	stacks := [][]string{
		{"tokenizers::encode", "preprocess", "tokio::runtime::poll", "main"},
		{"router::select", "route", "tokio::runtime::poll", "main"},
		{"epoll_wait", "tokio::runtime::park", "tokio::runtime::poll", "main"},
	}
	for t, k := int64(0), 0; t < e.StopTime-e.StartTime; t, k = t+20_000_000, k+1 {
		e.Samples = append(e.Samples, nsystest.Sample{Start: t, GlobalTID: main, Frames: stacks[k%len(stacks)]})
	}
	return e
}

// nsightWorker is worker w's export: back-to-back scheduler iterations.
func (sv *serving) nsightWorker(w int) nsystest.Export {
	if sv.p.Config.NsightIrregular {
		return sv.nsightWorkerIrregular(w)
	}
	e := sv.nsightCapture()
	wk := &sv.d.workers[w]
	e.Host = wk.hosts[0]
	tid := packTID(wk.pid, wk.pid)
	e.Threads = []nsystest.Thread{{GlobalTID: tid, Name: "scheduler"}}
	stages := []string{"scheduler.recv_requests", "scheduler.run_batch", "scheduler.process_batch_result"}
	if wk.engine == engineTokenSpeed {
		stages = []string{"forward_step " + wk.role, "graph_replay", "sampling_prep", "loop:commit"}
	}
	run := sv.p.EndNS() - sv.p.OriginNS
	iters := max(int64(1), run/20_000_000)
	if n := sv.p.Config.NsightRanges; n > 0 {
		iters = max(1, n/int64(len(stages)))
	}
	period := max(int64(len(stages))*10, run/iters)
	step := period / int64(len(stages))
	for k := range iters {
		s := nsightLead + k*period
		for j, name := range stages {
			e.Ranges = append(e.Ranges, nsystest.Range{Start: s + int64(j)*step, End: nsystest.End(s + int64(j+1)*step - step/10), Name: name, GlobalTID: tid})
		}
	}
	return e
}

// nsightName is worker w's export name: a GPU-set name for a per-process
// worker.
func (wk *workerProc) nsightName() string {
	return fmt.Sprintf("%s_%s_w%d_profile_gpu0-%d.sqlite", wk.hosts[0], wk.role, wk.index, wk.gpus-1)
}

// nsightOutputs lists the exports to write.
func nsightOutputs(sv *serving) []output {
	var outs []output
	add := func(name string, export func() nsystest.Export) {
		outs = append(outs, output{kind: KindNsight, rel: path.Join(NsightDir(), name), toPath: func(p string, f *File) error {
			e := export()
			f.Rows = int64(len(e.Ranges))
			return nsystest.Write(p, e)
		}})
	}
	for i, fe := range sv.d.frontends {
		add(fmt.Sprintf("%s_frontend_%d.sqlite", fe.host, fe.index), func() nsystest.Export { return sv.nsightFrontend(i) })
	}
	for w := range sv.d.workers {
		add(sv.d.workers[w].nsightName(), func() nsystest.Export { return sv.nsightWorker(w) })
	}
	return outs
}
