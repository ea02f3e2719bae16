package synth

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/tachometer"
)

// A Tachometer capture of the run: every DCGM field of every GPU, the
// engine and Dynamo gauges of every worker and the frontend's gauges,
// scraped once a second from shortly before the first request to shortly
// after the last. Gauges read the plan's occupancy, so a busy rank shows up
// as running requests, GPU utilization, power and memory at the same time.

// TachometerCapture names the capture leaf directory.
const TachometerCapture = "synth-capture"

// TachometerDir is the capture leaf, relative to the run directory.
func TachometerDir() string { return path.Join("logs", "tachometer", "local", TachometerCapture) }

const (
	scrapeLead = 30 * second // capture starts before the first request
	scrapeTail = 10 * second // and ends after the last
	tailScrape = 3           // scrapes current.arrow repeats from the end
	// finalRowGroup is final.parquet's row group. The Tachometer compactor
	// writes 200,000, but internal/tachometer decodes Parquet in batches of
	// 131,072 rows and cannot yet decode a batch spanning two row groups'
	// dictionaries; a multiple of its batch keeps every batch in one group.
	finalRowGroup = 1 << 18
	gpuMemoryMiB  = 189470
	gpusPerNode   = 4
)

var captureExtra = []string{"gpu", "hostname", "rank", "worker_index", "worker_process", "worker_role"}

// dcgmFamilies are the DCGM exporter fields of the GB200 scrape fixture.
var dcgmFamilies = []string{
	"DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_GPU_TEMP",
	"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL",
	"DCGM_FI_DEV_ENC_UTIL", "DCGM_FI_DEV_DEC_UTIL", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_FB_FREE",
	"DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_RESERVED", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
	"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
	"DCGM_FI_DEV_VGPU_LICENSE_STATUS",
}

// Value kinds of non-DCGM series.
const (
	gaugeRunning = iota
	gaugeQueued
	gaugeTokenUsage
	gaugeGen
	gaugeInflight
	gaugeFrontendInflight
	gaugeFrontendQueued
)

// seriesModel says how to compute one series' values.
type seriesModel struct {
	dcgm     int // index into dcgmFamilies, or -1 for a gauge
	gauge    int
	worker   int // -1: idle node or frontend
	rank     int // -1: the whole worker
	endpoint int
}

// rankActivity holds a rank's occupancy at every scrape.
type rankActivity struct {
	busy, queued, tokens, gen, inflight []float32
	nvlink                              []float64 // cumulative GiB moved
}

type capture struct {
	sv       *serving
	startNS  int64 // the capture writer started
	firstNS  int64 // the first scrape
	scrapes  int
	series   []tachometer.CaptureSeries
	models   []seriesModel
	offsets  []int64 // per endpoint: scrape offset within the second
	activity [][]rankActivity
	frontend [2][]float32
	seed     uint64
}

// newCapture lays out the series, adding idle nodes until the capture
// holds at least Config.Samples rows.
func newCapture(sv *serving, occ *occupancy) *capture {
	p := sv.p
	c := &capture{sv: sv, seed: p.Config.Seed}
	c.firstNS = p.OriginNS - scrapeLead
	c.startNS = c.firstNS - 1500*milli
	c.scrapes = int((p.EndNS()+scrapeTail-c.firstNS)/second) + 1
	rng := rand.New(rand.NewPCG(p.Config.Seed, 0x7ac0_0000_0000_0000))
	d := sv.d
	for w := range d.workers {
		wk := &d.workers[w]
		for h, host := range wk.hosts {
			c.addNode(rng, host, w, h*gpusPerNode)
		}
	}
	for w := range d.workers {
		c.addEngine(w)
	}
	c.addFrontend()
	natural := int64(len(c.series)) * int64(c.scrapes)
	if want := p.Config.Samples; want > natural {
		perNode := int64(len(dcgmFamilies)*gpusPerNode) * int64(c.scrapes)
		for n := int64(0); n < (want-natural+perNode-1)/perNode; n++ {
			c.addNode(rng, fmt.Sprintf("node-%03d", d.nodes+1+int(n)), -1, 0)
		}
	}
	c.activity = make([][]rankActivity, len(d.workers))
	for w := range d.workers {
		c.activity[w] = make([]rankActivity, d.workers[w].dp)
		for k := range c.activity[w] {
			c.activity[w][k] = c.measure(w, &occ.ranks[w][k])
		}
	}
	for k := range 2 {
		c.frontend[k] = make([]float32, c.scrapes)
	}
	for s := range c.scrapes {
		t := c.scrapeTime(s)
		c.frontend[0][s] = float32(occ.inflight.count(t))
		c.frontend[1][s] = float32(occ.queued.count(t))
	}
	return c
}

func (c *capture) scrapeTime(k int) int64 { return c.firstNS + int64(k)*second }

// endpoint registers a scrape endpoint; endpoints are scraped a few
// milliseconds apart within each second.
func (c *capture) endpoint() int {
	c.offsets = append(c.offsets, int64(len(c.offsets))*7*milli%second)
	return len(c.offsets) - 1
}

// addNode adds the DCGM series of a node's GPUs; worker -1 is an idle node
// of the allocation. firstRank is the worker rank of the node's GPU 0.
func (c *capture) addNode(rng *rand.Rand, host string, worker, firstRank int) {
	ep := c.endpoint()
	var role, index, process string
	if worker >= 0 {
		wk := &c.sv.d.workers[worker]
		role, index, process = wk.role, strconv.Itoa(wk.index), wk.epoch
	}
	for g := range gpusPerNode {
		uuid := "GPU-" + newUUID(rng)
		bus := []string{"00000008", "00000009", "00000018", "00000019"}[g] + ":06:00.0"
		labels := fmt.Sprintf(`{DCGM_FI_DRIVER_VERSION="580.105.05",Hostname=%q,UUID=%q,device="nvidia%d",gpu="%d",modelName="NVIDIA GB200",pci_bus_id=%q}`,
			host, uuid, g, g, bus)
		rank := ""
		if worker >= 0 {
			rank = strconv.Itoa(firstRank + g)
		}
		for f, fam := range dcgmFamilies {
			c.series = append(c.series, tachometer.CaptureSeries{
				Endpoint: "dcgm_" + host, Name: fam + labels,
				Extra: []string{strconv.Itoa(g), host, rank, index, process, role},
			})
			c.models = append(c.models, seriesModel{dcgm: f, worker: worker, rank: c.gpuRank(worker, firstRank+g), endpoint: ep})
		}
	}
}

// gpuRank maps a worker GPU to the engine rank whose load it carries: its
// DP rank, or the whole engine without DP attention.
func (c *capture) gpuRank(worker, gpu int) int {
	if worker < 0 || c.sv.d.workers[worker].dp == 1 {
		return -1
	}
	return gpu
}

// addEngine adds a worker's engine gauges (per DP rank for SGLang) and the
// Dynamo component gauge.
func (c *capture) addEngine(w int) {
	wk := &c.sv.d.workers[w]
	ep := c.endpoint()
	epName := fmt.Sprintf("%s_%d", wk.role, wk.index)
	extra := func(rank string) []string {
		return []string{"", wk.hosts[0], rank, strconv.Itoa(wk.index), wk.epoch, wk.role}
	}
	add := func(name string, gauge, rank int, rankText string) {
		c.series = append(c.series, tachometer.CaptureSeries{Endpoint: epName, Name: name, Extra: extra(rankText)})
		c.models = append(c.models, seriesModel{dcgm: -1, gauge: gauge, worker: w, rank: rank, endpoint: ep})
	}
	if wk.engine == engineTokenSpeed {
		labels := `{model_name="` + Model + `"}`
		add("tokenspeed:num_requests_running"+labels, gaugeRunning, -1, "")
		add("tokenspeed:num_requests_waiting"+labels, gaugeQueued, -1, "")
		add("tokenspeed:kv_cache_usage_perc"+labels, gaugeTokenUsage, -1, "")
	} else {
		for r := range wk.dp {
			labels := fmt.Sprintf(`{engine_type="unified",model_name=%q,pp_rank="0",tp_rank="%d"}`, Model, r)
			rankText := ""
			if wk.dp > 1 {
				labels = fmt.Sprintf(`{dp_rank="%d",engine_type="unified",model_name=%q,pp_rank="0",tp_rank="%d"}`, r, Model, r)
				rankText = strconv.Itoa(r)
			}
			rank := r
			if wk.dp == 1 {
				rank = -1
			}
			add("sglang:num_running_reqs"+labels, gaugeRunning, rank, rankText)
			add("sglang:num_queue_reqs"+labels, gaugeQueued, rank, rankText)
			add("sglang:token_usage"+labels, gaugeTokenUsage, rank, rankText)
			add("sglang:gen_throughput"+labels, gaugeGen, rank, rankText)
		}
	}
	add(`dynamo_component_inflight_requests{dynamo_component="backend",dynamo_endpoint="generate",dynamo_namespace="dynamo"}`, gaugeInflight, -1, "")
}

func (c *capture) addFrontend() {
	ep := c.endpoint()
	host := c.sv.d.frontends[0].host
	// The frontend labels its gauges with the model name clients asked
	// for; a hostile run has one ask for markup and quotes.
	model := Model
	if c.sv.p.Config.Hostile {
		model += " " + HostileMarkup + " " + HostileQuotes
	}
	for _, g := range []struct {
		name  string
		gauge int
	}{{"dynamo_frontend_inflight_requests", gaugeFrontendInflight}, {"dynamo_frontend_queued_requests", gaugeFrontendQueued}} {
		c.series = append(c.series, tachometer.CaptureSeries{
			Endpoint: "frontend", Name: g.name + `{model=` + strconv.Quote(model) + `}`,
			Extra: []string{"", host, "", "", "", ""},
		})
		c.models = append(c.models, seriesModel{dcgm: -1, gauge: g.gauge, worker: -1, rank: -1, endpoint: ep})
	}
}

// measure samples a rank's occupancy at every scrape.
func (c *capture) measure(w int, rl *rankLoad) rankActivity {
	n := c.scrapes
	a := rankActivity{busy: make([]float32, n), queued: make([]float32, n), tokens: make([]float32, n),
		gen: make([]float32, n), inflight: make([]float32, n), nvlink: make([]float64, n)}
	decode := c.sv.d.workers[w].role == "decode"
	var moved float64
	for k := range n {
		t := c.scrapeTime(k)
		var busy, queued int
		var tokens, gen float64
		if decode {
			busy, tokens = rl.running.at(t)
			queued = rl.dqueue.count(t)
			_, gen = rl.gen.at(t)
			a.inflight[k] = float32(busy + queued + rl.transfer.count(t) + rl.prealloc.count(t))
		} else {
			var held float64
			busy, tokens = rl.forward.at(t)
			queued, held = rl.queue.at(t)
			tokens += held
			a.inflight[k] = float32(busy + queued + rl.bootstrap.count(t) + rl.inflight.count(t))
		}
		_, sending := rl.transfer.at(t)
		moved += sending * kvBytesPerToken / (1 << 30) / 4
		if !decode {
			moved += float64(rl.inflight.count(t)) * 2
		}
		a.busy[k], a.queued[k], a.tokens[k], a.gen[k], a.nvlink[k] = float32(busy), float32(queued), float32(tokens), float32(gen), moved
	}
	return a
}

// noise is a deterministic uniform [0, 1) draw for (series, scrape).
func (c *capture) noise(series int32, k int) float64 {
	z := c.seed ^ uint64(series)<<32 ^ uint64(k)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// activityOf returns the rank activity a series reads, summing ranks for
// a whole-worker series.
func (c *capture) activityOf(m *seriesModel, k int) (busy, queued, tokens, gen, inflight float64, nvlink float64) {
	if m.worker < 0 {
		return
	}
	ranks := c.activity[m.worker]
	if m.rank >= 0 {
		ranks = ranks[m.rank : m.rank+1]
	}
	for r := range ranks {
		a := &ranks[r]
		busy += float64(a.busy[k])
		queued += float64(a.queued[k])
		tokens += float64(a.tokens[k])
		gen += float64(a.gen[k])
		inflight += float64(a.inflight[k])
		nvlink += a.nvlink[k]
	}
	return
}

// value is series s's sample at scrape k.
func (c *capture) value(s int32, k int) float64 {
	m := &c.models[s]
	busy, queued, tokens, gen, inflight, nvlink := c.activityOf(m, k)
	u := c.noise(s, k)
	if m.dcgm < 0 {
		wk := (*workerProc)(nil)
		if m.worker >= 0 {
			wk = &c.sv.d.workers[m.worker]
		}
		switch m.gauge {
		case gaugeRunning:
			return busy
		case gaugeQueued:
			return queued
		case gaugeTokenUsage:
			capacity := float64(decodeCapacity)
			if wk.role == "prefill" {
				capacity = prefillCapacity
			}
			if m.rank < 0 {
				capacity *= float64(wk.dp)
			}
			return math.Round(min(1, tokens/capacity)*1e4) / 1e4
		case gaugeGen:
			return math.Round(gen*100) / 100
		case gaugeInflight:
			return inflight
		case gaugeFrontendInflight:
			return float64(c.frontend[0][k])
		default:
			return float64(c.frontend[1][k])
		}
	}
	// A TP engine spreads one rank's work over all its GPUs.
	load := min(1, busy/4)
	if m.worker >= 0 && m.rank < 0 {
		load = min(1, busy/16)
	}
	util := math.Round(min(100, 100*load*(0.85+0.15*u)))
	switch dcgmFamilies[m.dcgm] {
	case "DCGM_FI_DEV_SM_CLOCK":
		if busy > 0 {
			return 1965 + math.Round(30*u)
		}
		return 120
	case "DCGM_FI_DEV_MEM_CLOCK":
		return 3996
	case "DCGM_FI_DEV_MEMORY_TEMP":
		return math.Round(30 + 24*load + 2*u)
	case "DCGM_FI_DEV_GPU_TEMP":
		return math.Round(28 + 30*load + 2*u)
	case "DCGM_FI_DEV_POWER_USAGE":
		return math.Round((165+800*load+10*u)*1e3) / 1e3
	case "DCGM_FI_DEV_GPU_UTIL":
		return util
	case "DCGM_FI_DEV_MEM_COPY_UTIL":
		return math.Round(util * 0.45)
	case "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE":
		used := 16.0
		if m.worker >= 0 {
			// Weights plus the KV pool are allocated at startup; the
			// allocator's growth follows the tokens held.
			used = 152000 + math.Round(4000*min(1, tokens/decodeCapacity))
		}
		if dcgmFamilies[m.dcgm] == "DCGM_FI_DEV_FB_USED" {
			return used
		}
		return gpuMemoryMiB - 1055 - used
	case "DCGM_FI_DEV_FB_RESERVED":
		return 1055
	case "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL":
		return math.Floor(nvlink * 1024)
	}
	return 0 // counters and statuses that stay zero on a healthy node
}

// order lists the series in final.parquet order: by metric name, then by
// scrape time (endpoint offset), then endpoint.
func (c *capture) order() []int32 {
	ids := make([]int32, len(c.series))
	for i := range ids {
		ids[i] = int32(i)
	}
	slices.SortStableFunc(ids, func(a, b int32) int {
		sa, sb := &c.series[a], &c.series[b]
		return cmp.Or(strings.Compare(sa.Name, sb.Name),
			cmp.Compare(c.offsets[c.models[a].endpoint], c.offsets[c.models[b].endpoint]),
			strings.Compare(sa.Endpoint, sb.Endpoint))
	})
	return ids
}

func (c *capture) sample(s int32, k int) tachometer.CaptureSample {
	t := c.scrapeTime(k) + c.offsets[c.models[s].endpoint]
	return tachometer.CaptureSample{Series: s, TimeNS: t, Value: c.value(s, k)}
}

// writeFinal writes final.parquet: every scrape, sorted by metric name and
// time as the compactor sorts it, streamed one batch at a time.
func (c *capture) writeFinal(w io.Writer) (int64, error) {
	cw, err := tachometer.NewCaptureWriter(w, tachometer.EncodingParquet, c.series,
		tachometer.CaptureOptions{Extra: captureExtra, StartNS: c.startNS, BatchRows: finalRowGroup})
	if err != nil {
		return 0, err
	}
	ids := c.order()
	for from := 0; from < len(ids); {
		to := from + 1
		for to < len(ids) && c.series[ids[to]].Name == c.series[ids[from]].Name {
			to++
		}
		for k := range c.scrapes {
			for _, s := range ids[from:to] {
				if err := cw.Write(c.sample(s, k)); err != nil {
					return cw.Rows(), err
				}
			}
		}
		from = to
	}
	return cw.Rows(), cw.Close()
}

// writeTail writes current.arrow, the live writer's last buffer: the final
// scrapes again, in scrape order, so it overlaps final.parquet exactly.
func (c *capture) writeTail(w io.Writer) (int64, error) {
	cw, err := tachometer.NewCaptureWriter(w, tachometer.EncodingArrowFile, c.series,
		tachometer.CaptureOptions{Extra: captureExtra, StartNS: c.startNS})
	if err != nil {
		return 0, err
	}
	ids := make([]int32, len(c.series))
	for i := range ids {
		ids[i] = int32(i)
	}
	slices.SortStableFunc(ids, func(a, b int32) int {
		return cmp.Compare(c.offsets[c.models[a].endpoint], c.offsets[c.models[b].endpoint])
	})
	for k := max(0, c.scrapes-tailScrape); k < c.scrapes; k++ {
		for _, s := range ids {
			if err := cw.Write(c.sample(s, k)); err != nil {
				return cw.Rows(), err
			}
		}
	}
	return cw.Rows(), cw.Close()
}
