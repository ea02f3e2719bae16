// Range statistics: the engine's "stats" answer (internal/query/stats.go),
// the same as `dsight query REPORT stats`, for the requests in the selected
// range and the metric series the page shows. The panel under the session
// tree shows it; the percentile rows (slowrows.js) draw its slow requests.

import { h, fmtInt } from "./dom.js";
import { ask } from "./engine.js";
import { loadShards, familySeries } from "./metricdata.js";

const ROUNDS = 4;
// SLOW_LIMIT is how many requests a percentile row lists, slowest first.
export const SLOW_LIMIT = 200;

// statsArgs turns rangeStats options into engine arguments.
export function statsArgs(o = {}) {
  const str = (v) => (v === undefined || v === null ? undefined : String(v));
  return { from: o.from, to: o.to, name: str(o.name), worker: str(o.worker), ids: Array.isArray(o.ids) ? o.ids.map(Number) : undefined, limit: o.limit };
}

// rangeStats resolves to the "stats" answer once every metric shard it
// needs is loaded.
export async function rangeStats(args) {
  for (let round = 1; ; round++) {
    try {
      return ask("stats", args);
    } catch (err) {
      if (round >= ROUNDS || err.code !== "shards_needed") throw err;
      await loadShards(args.name, err.shards);
    }
  }
}

// requestStatsFor answers synchronously for the requests alone (no
// series), asking the engine once per range: the percentile rows and the
// panel share the answer.
let memo = { key: "", answer: null };
export const hasRequestStats = (from, to, limit) => memo.key === `${from} ${to} ${limit}`;

export function requestStatsFor(from, to, limit) {
  const key = `${from} ${to} ${limit}`;
  if (memo.key !== key) memo = { key, answer: ask("stats", { from, to, ids: [], limit }) };
  return memo.answer;
}

// visibleSeries lists the series ids of the metric charts the page shows:
// the selected family and the pinned ones, as their charts draw them (the
// first 12 of each), hidden ones left out.
export function visibleSeries(view) {
  const st = view.state;
  if (!view.metrics) return [];
  const names = [...new Set([st.metric, ...st.pinnedMetrics].filter((n) => typeof n === "string"))];
  const out = [];
  for (const name of names) {
    const hidden = new Set(st.metricCharts?.[name]?.hidden || []);
    for (const s of familySeries(name).slice(0, 12)) if (!hidden.has(String(s.id))) out.push(s.id);
  }
  return out;
}

const num = (v, unit = "") => (v === null || v === undefined ? "—" : `${Math.abs(v) >= 100 ? v.toFixed(1) : v.toPrecision(4).replace(/\.?0+$/, "")}${unit}`);
const pcts = (d, unit) => `p50 ${num(d.p50, unit)} · p90 ${num(d.p90, unit)} · p99 ${num(d.p99, unit)}`;

// mountRangeStats adds the statistics panel under the session tree and
// returns its update function, which the view calls after each render.
// The answer for a range is asked once the range has settled.
export function mountRangeStats(view) {
  const host = document.getElementById("tracks");
  const panel = h("section", { id: "rangeStats", class: "range-stats", "aria-label": "Range statistics", "aria-live": "polite" });
  const before = document.getElementById("emptyTimeline");
  host.insertBefore(panel, before);
  let key = "";
  let timer = null;
  let seq = 0;
  const update = () => {
    const st = view.state;
    const ids = visibleSeries(view);
    const k = `${st.from} ${st.to} ${ids.join(",")}`;
    if (k === key) return;
    key = k;
    clearTimeout(timer);
    const mine = ++seq;
    timer = setTimeout(() => {
      draw(panel, requestStatsFor(st.from, st.to, SLOW_LIMIT), null);
      if (!ids.length) return;
      rangeStats({ from: st.from, to: st.to, ids, limit: SLOW_LIMIT }).then(
        (full) => mine === seq && draw(panel, full, full.series),
        () => {},
      );
    }, 60);
  };
  return update;
}

function draw(panel, s, series) {
  const r = s.requests;
  const rows = [
    h("h3", null, `Range ${num(s.range[0], " s")} – ${num(s.range[1], " s")}`),
    h(
      "p",
      { class: "stats-requests", dataset: { count: String(r.count) } },
      `${fmtInt(r.count)} requests in range · ${fmtInt(r.completed)} completed · ${fmtInt(r.errors)} errors · ${fmtInt(r.cancelled)} cancelled`,
    ),
    h("p", null, `Latency (${fmtInt(r.latency_s.samples)} completed): ${pcts(r.latency_s, " s")} · max ${num(r.latency_s.max, " s")}`),
    h("p", null, `TTFT (${fmtInt(r.ttft_s.samples)} known, ${fmtInt(r.ttft_unknown)} unknown): ${pcts(r.ttft_s, " s")}`),
    h(
      "p",
      null,
      `Generation ≈ ${num(r.generation_tokens_per_s, " tok/s")} · prefill ≈ ${num(r.prefill_tokens_per_s, " tok/s")} (estimates) · per request ${pcts(r.output_tokens_per_s, " tok/s")} (${fmtInt(r.output_tokens_per_s.samples)})`,
    ),
  ];
  if (series && series.length) {
    const head = h("tr", null, ["Series", "samples", "min", "max", "mean", "p50", "p90", "p99"].map((t) => h("th", null, t)));
    const body = series.map((x) =>
      h(
        "tr",
        { dataset: { series: String(x.id) } },
        h("td", { title: x.name }, x.derived ? `${x.label} (derived)` : x.label),
        h("td", null, fmtInt(x.samples)),
        h("td", null, num(x.min)),
        h("td", null, num(x.max)),
        h("td", { title: x.mean === null ? "no sample in the range: no mean" : x.mean_kind === "time_weighted" ? `time-weighted over ${num(x.mean_seconds, " s")}${x.carried ? ", with the value held from before the range" : ""}` : "plain mean of the samples" }, num(x.mean)),
        h("td", null, num(x.p50)),
        h("td", null, num(x.p90)),
        h("td", null, num(x.p99)),
      ),
    );
    rows.push(h("table", { class: "stats-series" }, h("thead", null, head), h("tbody", null, body)));
  }
  rows.push(h("p", { class: "muted" }, `Percentiles: ${s.percentile_method}. Exact from every request and row in the range.`));
  panel.replaceChildren(...rows);
}
