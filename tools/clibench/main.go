// Command clibench times `dsight query` as a user runs it: one fresh
// process per question, start-up, report open and answer included. For
// each public query kind it asks one representative question (ids, names
// and workers taken from the report itself) -n times and prints the p50
// and p95 wall times as a Markdown table, with the load average.
//
//	go run ./tools/clibench -report out/demo-report [-bin bin/dsight] [-n 20]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

func main() {
	report := flag.String("report", "", "report directory to question (required)")
	bin := flag.String("bin", "bin/dsight", "the dsight binary")
	n := flag.Int("n", 20, "runs per question")
	budget := flag.Duration("budget", 100*time.Millisecond, "target p95 per question, start-up included")
	flag.Parse()
	if *report == "" {
		flag.Usage()
		os.Exit(2)
	}
	b := bench{bin: *bin, report: *report}
	questions, err := b.questions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "clibench:", err)
		os.Exit(1)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("report %s, %d runs per question, load average %s\n\n", *report, *n, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Println("| kind | question | wall p50 | wall p95 | CPU p50 | CPU p95 | answer bytes |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- |")
	over := 0
	for _, q := range questions {
		times := make([]time.Duration, 0, *n)
		cpus := make([]time.Duration, 0, *n)
		var size int
		for i := 0; i < *n; i++ {
			out, d, cpu, err := b.run(q)
			if err != nil {
				fmt.Fprintf(os.Stderr, "clibench: %s: %v\n", strings.Join(q, " "), err)
				os.Exit(1)
			}
			times, cpus = append(times, d), append(cpus, cpu)
			size = len(out)
		}
		p50, p95 := quantiles(times)
		c50, c95 := quantiles(cpus)
		if p95 > *budget {
			over++
		}
		fmt.Printf("| %s | `%s` | %s | %s | %s | %s | %d |\n", q[0], strings.Join(q[1:], " "), ms(p50), ms(p95), ms(c50), ms(c95), size)
	}
	fmt.Printf("\n%d of %d questions over %v (wall, p95)\n", over, len(questions), *budget)
}

// quantiles returns the p50 and p95 of ds (sorting it).
func quantiles(ds []time.Duration) (p50, p95 time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], ds[min(len(ds)-1, len(ds)*95/100)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

type bench struct{ bin, report string }

// run runs one question in a fresh process: its answer, wall time and
// CPU time (user + system; on a shared machine the steadier number).
func (b bench) run(q []string) ([]byte, time.Duration, time.Duration, error) {
	cmd := exec.Command(b.bin, append([]string{"query", b.report}, q...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return nil, d, 0, fmt.Errorf("%v: %s", err, errOut.String())
	}
	return out.Bytes(), d, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func (b bench) ask(into any, q ...string) error {
	out, _, _, err := b.run(q)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, into)
}

// questions picks one question per kind from what the report holds; a
// kind the report has no evidence for is asked without filters.
func (b bench) questions() ([][]string, error) {
	var sum struct {
		Meta struct {
			Duration float64 `json:"duration"`
		} `json:"meta"`
	}
	var reqs struct {
		Items []struct {
			ID        string `json:"id"`
			SpanCount int    `json:"span_count"`
		} `json:"items"`
	}
	var fams struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	}
	var profiles struct {
		Items []struct {
			ID     int    `json:"id"`
			Worker string `json:"worker"`
		} `json:"items"`
	}
	var workers struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	for _, a := range []struct {
		into any
		q    []string
	}{{&sum, []string{"summary"}}, {&reqs, []string{"requests", "--limit", "1000"}}, {&fams, []string{"metric_families"}},
		{&profiles, []string{"profiles"}}, {&workers, []string{"workers"}}} {
		if err := b.ask(a.into, a.q...); err != nil {
			return nil, err
		}
	}
	mid := sum.Meta.Duration / 2
	from, to := f(mid), f(mid+5)
	qs := [][]string{
		{"summary"},
		{"requests", "--from", from, "--to", to, "--limit", "100"},
		{"requests", "--min-ttft-ms", "500", "--limit", "1000"},
		{"sessions", "--sort", "ttft", "--limit", "20"},
		{"server_spans", "--limit", "100"},
		{"iterations", "--from", from, "--to", to},
		{"sources"},
		{"metric_families"},
		{"metric_series", "--limit", "100"},
		{"workers"},
	}
	req := ""
	for _, r := range reqs.Items {
		if req == "" || r.SpanCount > 0 {
			req = r.ID
			if r.SpanCount > 0 {
				break
			}
		}
	}
	if req != "" {
		qs = append(qs, []string{"request", "--request", req}, []string{"lifecycle", "--request", req})
	}
	if len(fams.Items) > 0 {
		name := fams.Items[0].Name
		qs = append(qs, []string{"metrics", "--name", name, "--from", from, "--to", to}, []string{"metrics", "--name", name, "--points"})
	}
	qs = append(qs, []string{"profiles"})
	for _, p := range profiles.Items {
		if p.Worker != "frontend" {
			qs = append(qs, []string{"nsys", "--profile", fmt.Sprint(p.ID), "--from", from, "--to", to, "--limit", "1000"},
				[]string{"cpu", "--profile", fmt.Sprint(p.ID)})
			break
		}
	}
	return qs, nil
}

func f(v float64) string { return fmt.Sprintf("%.3f", v) }
