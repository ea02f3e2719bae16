package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

func queryCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	var (
		from, to, minTTFT           optFloat
		session, agent, worker      optString
		request, search, sortBy, id string
		offset, limit               optInt
		bins, pixels                int
		name, host, gpu, rank       optString
		points                      bool
	)
	fs.Var(&from, "from", "range start, seconds from origin")
	fs.Var(&to, "to", "range end, seconds from origin")
	fs.Var(&minTTFT, "min-ttft-ms", "keep requests whose TTFT is at least this (unknown TTFT counts as 0)")
	fs.Var(&session, "session", "session id")
	fs.Var(&agent, "agent", "agent id")
	fs.Var(&worker, "worker", "server worker id")
	fs.StringVar(&request, "request", "", "request id (kinds request, lifecycle)")
	fs.StringVar(&id, "id", "", "source id (kind source)")
	fs.StringVar(&search, "search", "", "case-insensitive search over request identities")
	fs.StringVar(&sortBy, "sort", "", "session order: start, ttft or count")
	fs.Var(&offset, "offset", "items to skip")
	fs.Var(&limit, "limit", fmt.Sprintf("items to return (0–%d; default 100)", query.MaxLimit))
	fs.IntVar(&bins, "bins", 0, "overview bins")
	fs.IntVar(&pixels, "pixels", 0, "with --points: a plot this wide (every row, or each bucket's recorded min and max)")
	fs.Var(&name, "name", "metric family name (exact)")
	fs.Var(&host, "host", "metric host")
	fs.Var(&gpu, "gpu", "metric GPU")
	fs.Var(&rank, "rank", "metric rank")
	fs.BoolVar(&points, "points", false, "include metric points (up to 1000 per series)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: dsight query REPORT [KIND] [flags]\nkinds: %s (default summary)\n", strings.Join(query.Ops, ", "))
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return fmt.Errorf("%w: dsight query REPORT [KIND] [flags]", errUsage)
	}
	req := query.Request{Op: "summary"}
	if len(pos) == 2 {
		req.Op = pos[1]
	}
	a := &req.Args
	a.From, a.To, a.MinTTFTms = from.p, to.p, minTTFT.p
	a.Session, a.Agent, a.Worker = session.p, agent.p, worker.p
	a.Search, a.Sort, a.Bins, a.Pixels = search, sortBy, bins, pixels
	a.ID = request
	if id != "" {
		a.ID = id
	}
	a.Offset, a.Limit = offset.p, limit.p
	a.Name, a.Host, a.GPU, a.Rank, a.Points = name.p, host.p, gpu.p, rank.p, points
	core, dir, err := report.OpenDir(pos[0])
	if err != nil {
		return err
	}
	e, err := query.New(core)
	if err != nil {
		return err
	}
	if req.Op == "metrics" {
		if err := loadMetricShards(e, core, dir, req); err != nil {
			return err
		}
	}
	result, err := handle(e, req)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, result, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err = stdout.Write(b.Bytes())
	return err
}

// handle asks through Handle, exactly as the page asks, so both surfaces
// share one path.
func handle(e *query.Engine, req query.Request) (json.RawMessage, error) {
	body, _ := json.Marshal(req)
	var env struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(e.Handle(body), &env); err != nil {
		return nil, err
	}
	if !env.OK {
		return nil, fmt.Errorf("%s", env.Error)
	}
	return env.Result, nil
}

// loadMetricShards asks the engine which summary shards a metrics question
// needs, reads them from the report and hands them over, as the page does
// with its detail scripts.
func loadMetricShards(e *query.Engine, core *catalog.Core, dir string, req query.Request) error {
	req.Op = "metric_plan"
	raw, err := handle(e, req)
	if err != nil {
		return err
	}
	var plan struct {
		Shards []query.ShardNeed `json:"shards"`
	}
	if err := json.Unmarshal(raw, &plan); err != nil {
		return err
	}
	return report.LoadMetricShards(e, core, dir, plan.Shards)
}

// Optional flag values keep "not given" apart from zero.
type optFloat struct{ p *float64 }

func (o *optFloat) String() string {
	if o.p == nil {
		return ""
	}
	return strconv.FormatFloat(*o.p, 'g', -1, 64)
}
func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	o.p = &v
	return err
}

type optString struct{ p *string }

func (o *optString) String() string {
	if o.p == nil {
		return ""
	}
	return *o.p
}
func (o *optString) Set(s string) error { o.p = &s; return nil }

type optInt struct{ p *json.Number }

func (o *optInt) String() string {
	if o.p == nil {
		return ""
	}
	return o.p.String()
}
func (o *optInt) Set(s string) error { n := json.Number(s); o.p = &n; return nil }
