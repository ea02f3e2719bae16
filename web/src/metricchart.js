// One metric family's chart: every series of the family on one uPlot plot,
// a legend row per series with a toggle and its current value, and the
// capacity summary for series with a limit. Exposed as
// window.DSightMetricCharts.mount(host, opts) so automation can observe
// mounts; the page looks the mounter up through window at render time.

import { h, clear } from "./dom.js";

export const PALETTE = ["#2f6fdb", "#e0a030", "#1f9e8f", "#c2417b", "#7a5cc7", "#5b8c2a", "#d9622b", "#2a9bd0", "#9c6b3c", "#4b5563", "#b8a200", "#e0567a"];

const fmtNum = (v, digits = 4) => (v === null || v === undefined ? "unknown" : v.toLocaleString("en-US", { maximumFractionDigits: digits }));
const withUnit = (v, unit) => (unit ? `${fmtNum(v)} ${unit}` : fmtNum(v));

// caption names a series by where it was recorded; duplicates are told
// apart by the first label that differs, else by the series id.
function captions(items) {
  const base = items.map((s) => {
    const parts = [s.worker ?? s.host ?? s.endpoint ?? "series"];
    if (s.gpu !== null && s.gpu !== undefined) parts.push(`GPU ${s.gpu}`);
    if (s.rank !== null && s.rank !== undefined) parts.push(`${s.rank_kind || "rank"} ${s.rank}`);
    return parts.join(" · ");
  });
  const keyOrder = ["rank", "dp_rank", "global_rank", "worker_process", "pid", "gpu", "host", "endpoint", "stage", "mode"];
  return base.map((c, i) => {
    const twins = items.filter((_, j) => j !== i && base[j] === c);
    if (!twins.length) return c;
    const labels = (s) => new Map((s.labels || []).map((l) => [l.key, l.value]));
    const mine = labels(items[i]);
    const keys = [...keyOrder, ...[...mine.keys()].sort()];
    for (const k of keys) {
      if (!mine.has(k)) continue;
      if (twins.every((t) => labels(t).get(k) !== mine.get(k))) return `${c} · ${k}=${mine.get(k)}`;
    }
    return `${c} · series ${items[i].id}`;
  });
}

// firstPerTime keeps the first point at each timestamp (uPlot needs
// ascending, unique x); non-finite values are already null from the engine.
function fmtBucket(s) {
  if (s >= 1) return `${+s.toPrecision(3)} s`;
  if (s >= 1e-3) return `${+(s * 1e3).toPrecision(3)} ms`;
  return `${+(s * 1e6).toPrecision(3)} µs`;
}

function firstPerTime(points) {
  const xs = [];
  const ys = [];
  for (const [t, v] of points || []) {
    if (xs.length && xs[xs.length - 1] === t) continue;
    xs.push(t);
    ys.push(v);
  }
  return [xs, ys];
}

// heldLine draws a setting as held across the view: the setting carried
// into the range starts it at the left edge and the last one runs to the
// right edge (display only; the values are the recorded ones).
function heldLine(s, from, to) {
  const [xs, ys] = firstPerTime(s.points);
  if (s.temporal !== "setting") return [xs, ys];
  if (s.carried_setting && (!xs.length || xs[0] > from)) {
    xs.unshift(from);
    ys.unshift(s.carried_setting[1]);
  }
  if (xs.length && xs[xs.length - 1] < to) {
    xs.push(to);
    ys.push(ys[ys.length - 1]);
  }
  return [xs, ys];
}

function kindWord(s) {
  return s.temporal === "setting" ? "setting" : s.temporal === "event" ? "request event" : "sample";
}

// capacityLines renders the engine's capacity answer for the visible range.
function capacityLines(item, refLabel) {
  const c = item.capacity;
  const label = refLabel || item.reference?.label || "Limit";
  if (!c.samples) return [`No observed value in range · ${label} shown where recorded`];
  const out = [];
  out.push(`Peak observed ${withUnit(c.peak?.[1] ?? null, item.unit)}`);
  if (c.limit === "constant") out.push(`${label} ${fmtNum(c.limit_min)}`);
  else if (c.limit === "changed") out.push(`${label} ${fmtNum(c.limit_min)}–${fmtNum(c.limit_max)} (changed)`);
  else out.push(`${label} unavailable`);
  if (c.highest_usage) out.push(`Highest observed usage ${(c.highest_usage[1] * 100).toLocaleString("en-US", { maximumFractionDigits: 1 })}%`);
  if (c.unavailable > 0) out.push(`Limit unavailable for ${c.unavailable}/${c.samples} samples`);
  return out;
}

// GRID_ABOVE is the point count past which a chart is drawn on a grid.
const GRID_ABOVE = 200000;

// grid places every table's points on `slots` equal time slots over
// [from, to], keeping per series and slot the value farthest from the
// series' previous slot, so spikes survive and gaps stay gaps. It returns
// uPlot's aligned data directly.
function grid(tables, from, to, slots) {
  const span = to - from || 1;
  const xs = new Array(slots);
  for (let j = 0; j < slots; j++) xs[j] = from + ((j + 0.5) * span) / slots;
  const out = [xs];
  for (const [tx, ty] of tables) {
    const ys = new Array(slots).fill(undefined);
    let prev = null;
    for (let k = 0; k < tx.length; k++) {
      const j = Math.min(slots - 1, Math.max(0, Math.floor(((tx[k] - from) / span) * slots)));
      const v = ty[k];
      if (v === null) {
        if (ys[j] === undefined) ys[j] = null;
        continue;
      }
      const cur = ys[j];
      if (cur === undefined || cur === null || (prev !== null && Math.abs(v - prev) > Math.abs(cur - prev))) ys[j] = v;
      if (k + 1 === tx.length || Math.floor(((tx[k + 1] - from) / span) * slots) !== j) prev = ys[j];
    }
    out.push(ys);
  }
  return out;
}

// mount draws one family into host. opts: {from, to, items (engine metrics
// items with points), references (id → item with points), hidden (Set of
// series ids as strings), onSelect(from, to), onToggle(id, hidden), syncKey}.
// Returns {destroy(), uplot, drawnIds}.
export function mount(host, opts) {
  const { from, to, unit } = opts;
  const items = [...opts.items].sort((a, b) => a.id - b.id);
  const refs = opts.references || new Map();
  const hidden = opts.hidden || new Set();
  clear(host);
  if (!items.length) {
    host.appendChild(h("p", { class: "muted" }, "No recorded series for this metric."));
    return { destroy() {}, uplot: null, drawnIds: [] };
  }
  const shownCount = items.filter((s) => !hidden.has(String(s.id))).length;
  host.appendChild(h("div", { class: "ds-metric-count muted" }, `${shownCount} shown / ${items.length} recorded series`));
  const cut = items.filter((s) => s.points_truncated);
  if (cut.length) host.appendChild(h("div", { class: "ds-metric-note muted" }, `Drawn: the first ${cut[0].points.length.toLocaleString("en-US")} of ${cut[0].points_total.toLocaleString("en-US")} recorded rows in range${cut.length > 1 ? ` (and ${cut.length - 1} more series cut the same way)` : ""}; narrow the range to see the rest. Statistics and values below cover the whole range.`));
  const summarized = items.find((s) => s.points_bucket_seconds);
  if (summarized) host.appendChild(h("div", { class: "ds-metric-note muted" }, `Drawn from each ${fmtBucket(summarized.points_bucket_seconds)} bucket's recorded minimum and maximum samples (${summarized.points_total.toLocaleString("en-US")} rows in range); zoom in for every row.`));
  const anySamples = items.some((s) => s.samples > 0);
  const chartBox = h("div", { class: "ds-metric-chart" });
  host.appendChild(chartBox);
  if (!anySamples) chartBox.appendChild(h("p", { class: "muted" }, "No metric sample in this time range. Widen the shared time range."));

  // Tables: one per observed series, then one per reference line.
  const tables = [];
  const series = [{}];
  const owner = []; // uPlot series index → observed series id (as string)
  const capacity = items.some((s) => s.capacity);
  const caps = captions(items);
  items.forEach((s, k) => {
    const color = PALETTE[k % PALETTE.length];
    tables.push(heldLine(s, from, to));
    series.push({ label: caps[k], stroke: color, width: 1.5, show: !hidden.has(String(s.id)), spanGaps: false, points: { show: s.temporal !== "setting", size: 3 }, ...(s.temporal === "setting" ? { dash: [6, 3] } : {}) });
    owner.push(String(s.id));
    const ref = s.capacity && s.capacity.reference_series_id !== null ? refs.get(s.capacity.reference_series_id) : null;
    if (ref) {
      tables.push(heldLine(ref, from, to));
      series.push({ label: `${caps[k]} ${s.reference?.label || "limit"}`, stroke: color, width: 1, dash: [6, 4], show: !hidden.has(String(s.id)), spanGaps: false, points: { show: false }, paths: window.uPlot.paths.stepped({ align: 1 }) });
      owner.push(String(s.id));
    }
  });
  const width = Math.max(160, Math.floor(chartBox.getBoundingClientRect().width || host.clientWidth || 600));
  // uPlot aligns every series on the union of their times: with hundreds of
  // series (one per GPU) that union times the series count would not fit in
  // memory, so many points are drawn on a grid of two slots per pixel.
  const total = tables.reduce((n, [xs]) => n + xs.length, 0);
  const gridded = tables.length > 1 && total > GRID_ABOVE;
  if (gridded) host.insertBefore(h("div", { class: "ds-metric-note muted" }, `Drawn on a grid of ${2 * width} time slots (${tables.length} lines, ${total.toLocaleString("en-US")} points); hover values are the slot's most extreme recorded sample.`), chartBox);
  const joined = gridded ? grid(tables, from, to, 2 * width) : tables.map(([xs, ys]) => [xs.length ? xs : [from], xs.length ? ys : [null]]);
  let data = tables.length ? (gridded ? joined : window.uPlot.join(joined)) : [[from]];
  let yMin = Infinity;
  let yMax = -Infinity;
  for (let i = 1; i < data.length; i++) for (const v of data[i]) if (v !== null && v !== undefined) (yMin = Math.min(yMin, v)), (yMax = Math.max(yMax, v));
  const yRange = capacity ? [Math.min(0, Number.isFinite(yMin) ? yMin : 0), Math.max(1, 1.08 * (Number.isFinite(yMax) ? yMax : 0))] : null;
  const selectCb = opts.onSelect;
  const hover = h("div", { class: "ds-metric-hover muted", "aria-live": "off" }, "\u00a0");
  host.insertBefore(hover, chartBox);
  const showHover = (uu) => {
    const i = uu.cursor.idx;
    if (i === null || i === undefined) {
      hover.textContent = "\u00a0";
      return;
    }
    const parts = [`${uu.data[0][i].toFixed(3)} s`];
    for (let k = 1; k < uu.series.length; k++) {
      const v = uu.data[k][i];
      if (uu.series[k].show && v !== null && v !== undefined) parts.push(`${uu.series[k].label}: ${withUnit(v, unit)}`);
    }
    hover.textContent = parts.join(" · ");
  };
  const u = new window.uPlot(
    {
      width,
      height: 180,
      legend: { show: false },
      cursor: { sync: { key: opts.syncKey || "dsight-metrics" }, drag: { x: true, y: false, setScale: false } },
      scales: { x: { time: false, range: () => [from, to] }, ...(yRange ? { y: { range: () => yRange } } : {}) },
      axes: [{ label: "", size: 30 }, { size: 56, label: unit || "" }],
      series,
      hooks: {
        setCursor: [showHover],
        setSelect: [
          (uu) => {
            const sel = uu.select;
            if (sel.width >= 4 && selectCb) {
              const a = uu.posToVal(sel.left, "x");
              const b = uu.posToVal(sel.left + sel.width, "x");
              uu.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
              if (b > a) selectCb(Math.max(a, 0), b);
            } else uu.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
          },
        ],
      },
    },
    data,
    chartBox,
  );
  const drawnIds = items.filter((s) => !hidden.has(String(s.id)) && s.samples > 0).map((s) => String(s.id));
  chartBox.dataset.drawnIds = drawnIds.join(",");

  // Legend rows: toggle, caption, current value.
  const legend = h("div", { class: "ds-metric-legend" });
  items.forEach((s, k) => {
    const id = String(s.id);
    const shown = !hidden.has(id);
    const toggle = h("button", { type: "button", class: "ds-metric-legend-toggle", "aria-pressed": String(shown), title: s.label }, h("i", { class: "swatch", style: { background: PALETTE[k % PALETTE.length] } }), caps[k]);
    toggle.addEventListener("click", () => {
      const nowShown = toggle.getAttribute("aria-pressed") !== "true";
      toggle.setAttribute("aria-pressed", String(nowShown));
      owner.forEach((o, idx) => o === id && u.setSeries(idx + 1, { show: nowShown }));
      const ids = items.filter((x) => u.series[owner.indexOf(String(x.id)) + 1].show && x.samples > 0).map((x) => String(x.id));
      chartBox.dataset.drawnIds = ids.join(",");
      opts.onToggle?.(id, !nowShown);
    });
    const value =
      s.last !== null && s.last_time !== null
        ? h("span", { class: "ds-metric-value", title: `Recorded ${kindWord(s)} at ${s.last_time} elapsed seconds: ${withUnit(s.last, s.unit)}` }, `${withUnit(s.last, s.unit)} @ ${s.last_time.toFixed(3)} s`)
        : h("span", { class: "ds-metric-value muted" }, "no sample in range");
    const row = h("div", { class: "ds-metric-legend-row", "data-series-id": id }, toggle, value);
    if (s.capacity) {
      const key = h("span", { class: "ds-limit-key" }, h("i", { class: "dash", style: { borderColor: PALETTE[k % PALETTE.length] } }), `${s.reference?.label || "Limit"} (dashed)`);
      row.appendChild(h("div", { class: "ds-capacity" }, key, capacityLines(s, s.reference?.label).map((t) => h("span", null, t))));
    }
    row.appendChild(h("details", { class: "ds-metric-labels" }, h("summary", null, "Labels"), h("pre", null, JSON.stringify({ label: s.label, raw_name: s.raw_name, endpoint: s.endpoint, host: s.host, worker: s.worker, gpu: s.gpu, rank: s.rank, labels: s.labels }, null, 1))));
    legend.appendChild(row);
  });
  host.appendChild(legend);
  const onResize = () => {
    const w = Math.floor(chartBox.getBoundingClientRect().width);
    if (w > 0 && Math.abs(w - u.width) > 2) u.setSize({ width: w, height: 180 });
  };
  window.addEventListener("resize", onResize);
  return {
    uplot: u,
    drawnIds,
    destroy() {
      window.removeEventListener("resize", onResize);
      u.destroy();
    },
  };
}

window.DSightMetricCharts = { mount };
