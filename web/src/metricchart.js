// One metric family's chart: the family's shown series on one uPlot plot,
// a legend row per series with a toggle and its current value, and the
// capacity summary for series with a limit. Exposed as
// window.DSightMetricCharts.mount(host, opts) so automation can observe
// mounts; the page looks the mounter up through window at render time.
//
// Series are drawn from plot columns (metricplot.js) by metricdraw.js.
// Handed the chart it replaces (opts.previous) for the same family, mount
// updates it in place — new columns, values and notes — instead of
// rebuilding the legend, so a zoom costs the answer and one redraw.

import { h, clear, setText } from "./dom.js";
import { linePath, countLabels, yRange, pointAt } from "./metricdraw.js";
import { insets } from "./timeaxis.js";
import { createStack } from "./stackbands.js";

// The y axis's unit label takes this much of the gutter, its ticks the rest.
const Y_LABEL = 24;

export const PALETTE = ["#2f6fdb", "#e0a030", "#1f9e8f", "#c2417b", "#7a5cc7", "#5b8c2a", "#d9622b", "#2a9bd0", "#9c6b3c", "#4b5563", "#b8a200", "#e0567a"];

// One formatter per digit count: toLocaleString builds one per call, which
// shows on a legend of hundreds of rows redrawn per zoom.
const formats = new Map();
const fmtNum = (v, digits = 4) => {
  if (v === null || v === undefined) return "unknown";
  let f = formats.get(digits);
  if (!f) formats.set(digits, (f = new Intl.NumberFormat("en-US", { maximumFractionDigits: digits })));
  return f.format(v);
};
// A unit word agrees with its count: "1 request", "2 requests"; symbols
// ("ms", "%", "B/s") stay as recorded.
const unitFor = (v, unit) => (v === 1 && /^[a-z]{3,}s$/.test(unit) ? unit.slice(0, -1) : unit);
const withUnit = (v, unit) => (unit ? `${fmtNum(v)} ${unitFor(v, unit)}` : fmtNum(v));

// caption names a series by where it was recorded; duplicates are told
// apart by the first label that differs, else by the series id.
function captions(items) {
  const base = items.map((s) => {
    // A derived series is named by what it holds ("Title · p50 · 1 s intervals").
    if (s.derived) return s.label.includes(" · ") ? s.label.slice(s.label.indexOf(" · ") + 3) : s.label;
    const parts = [s.worker ?? s.host ?? s.endpoint ?? "series"];
    if (s.gpu !== null && s.gpu !== undefined) parts.push(`GPU ${s.gpu}`);
    if (s.rank !== null && s.rank !== undefined) parts.push(`${s.rank_kind || "rank"} ${s.rank}`);
    return parts.join(" · ");
  });
  const byCaption = new Map();
  base.forEach((c, i) => byCaption.set(c, [...(byCaption.get(c) || []), i]));
  const keyOrder = ["rank", "dp_rank", "global_rank", "worker_process", "pid", "gpu", "host", "endpoint", "stage", "mode"];
  const labels = (s) => new Map((s.labels || []).map((l) => [l.key, l.value]));
  return base.map((c, i) => {
    const twins = byCaption.get(c).filter((j) => j !== i).map((j) => labels(items[j]));
    if (!twins.length) return c;
    const mine = labels(items[i]);
    for (const k of [...keyOrder, ...[...mine.keys()].sort()]) {
      if (mine.has(k) && twins.every((t) => t.get(k) !== mine.get(k))) return `${c} · ${k}=${mine.get(k)}`;
    }
    return `${c} · series ${items[i].id}`;
  });
}

function fmtBucket(s) {
  if (s >= 1) return `${+s.toPrecision(3)} s`;
  if (s >= 1e-3) return `${+(s * 1e3).toPrecision(3)} ms`;
  return `${+(s * 1e6).toPrecision(3)} µs`;
}

function kindWord(s) {
  return s.temporal === "setting" ? "setting" : s.temporal === "event" ? "request event" : "sample";
}

// capacityLines renders the engine's capacity answer for the visible range.
function capacityLines(item, c) {
  const label = item.reference?.label || "Limit";
  if (!c.samples) return [`No observed value in range · ${label} shown where recorded`];
  const out = [];
  out.push(`Peak observed ${withUnit(c.peak?.[1] ?? null, item.unit)}`);
  if (c.limit === "constant") out.push(`${label} ${fmtNum(c.limit_min)}`);
  else if (c.limit === "changed") out.push(`${label} ${fmtNum(c.limit_min)}–${fmtNum(c.limit_max)} (changed)`);
  else out.push(`${label} unavailable`);
  if (c.highest_usage) out.push(`Highest observed usage ${fmtNum(c.highest_usage[1] * 100, 1)}%`);
  if (c.unavailable > 0) out.push(`Limit unavailable for ${c.unavailable}/${c.samples} samples`);
  return out;
}

// fromItem turns a "metrics" answer item with points (the documented
// query shape) into plot columns, so mount also draws such answers.
function fromItem(s) {
  const pts = s.points || [];
  const times = new Float64Array(pts.length);
  const values = new Float64Array(pts.length);
  pts.forEach(([t, v], k) => {
    times[k] = t;
    values[k] = v === null || v === undefined ? NaN : v;
  });
  const carried = carriedOf(s.carried_setting);
  return {
    id: s.id, temporal: s.temporal, exact: !s.points_bucket_seconds, medians: false, bucket_seconds: s.points_bucket_seconds ?? null,
    points_total: s.points_total ?? pts.length, points_truncated: !!s.points_truncated, samples: s.samples ?? 0,
    min: s.min ?? null, max: s.max ?? null, last: s.last ?? null, last_count: 1, last_time: s.last_time ?? null,
    carried_setting: carried.setting, carried_values: carried.values, capacity: s.capacity ?? null, times, values, counts: null,
  };
}

// carriedOf reads a carried setting as the CLI ([t, v]) or the page
// ([[t, v, source, line], …], several when conflicting) answers it.
function carriedOf(c) {
  if (!c || (Array.isArray(c) && c.length === 0)) return { setting: null, values: null };
  if (!Array.isArray(c[0])) return { setting: c, values: null };
  if (c.length === 1) return { setting: [c[0][0], c[0][1] ?? null], values: null };
  return { setting: [c[0][0], null], values: c.map((p) => p[1] ?? null) };
}

// mount draws one family into host. opts: {from, to, unit, items (series
// metadata, or "metrics" items with points), plot (Map id → plot series
// from metricplot.js; without it the items' points are drawn), references
// (id → "metrics" item, with items), hidden (Set of series ids as strings:
// not asked for and not drawn), onSelect(from, to), onToggle(id, hidden),
// onShowAll(), onShowFirst(n), firstN, syncKey, previous}. Returns
// {destroy(), uplot, drawnIds, update(opts)}.
export function mount(host, opts) {
  const prev = opts.previous;
  if (prev && prev.host === host && prev.fits && prev.fits(opts)) {
    prev.update(opts);
    return prev;
  }
  prev?.destroy();
  return build(host, opts);
}

function columns(opts, items) {
  if (opts.plot) return opts.plot;
  const out = new Map();
  for (const s of items) out.set(s.id, fromItem(s));
  for (const [id, r] of opts.references || []) out.set(id, fromItem(r));
  return out;
}

function build(host, opts) {
  const { unit } = opts;
  const items = [...opts.items].sort((a, b) => a.id - b.id);
  clear(host);
  if (!items.length) {
    host.appendChild(h("p", { class: "muted" }, "No recorded series for this metric."));
    return { host, destroy() {}, uplot: null, drawnIds: [], fits: () => false };
  }
  const ids = items.map((s) => s.id).join(",");
  const caps = captions(items);
  const color = (k) => PALETTE[k % PALETTE.length];
  const refOf = (s) => s.reference?.series_id ?? null;
  let cur = null; // {from, to, plot, hidden, yRange}
  const shownOf = (s) => !cur.hidden.has(String(s.id));

  const count = h("div", { class: "ds-metric-count muted" });
  const controls = h("div", { class: "ds-metric-controls" });
  const notes = h("div", { class: "ds-metric-notes" });
  const hover = h("div", { class: "ds-metric-hover muted", "aria-live": "off" }, "\u00a0");
  const chartBox = h("div", { class: "ds-metric-chart" });
  const empty = h("p", { class: "muted" }, "No metric sample in this time range. Widen the shared time range.");
  host.append(count, controls, notes, hover, chartBox);
  // A family the catalog marks stackable draws its bands (stackbands.js).
  const stack = opts.stack ? createStack({ items, by: opts.stack.by, within: opts.stack.within, caps, color, fmt: withUnit, redraw: () => chart.update(opts) }) : null;
  if (stack) chartBox.after(stack.box);

  // uPlot series: per item its line, then its limit line when it has one.
  const series = [{}];
  const lines = []; // uPlot index - 1 → {item, k, ref}
  items.forEach((s, k) => {
    const stepped = s.temporal === "setting";
    lines.push({ item: s, k, ref: false });
    // One-pixel lines are drawn as hairlines; wider ones go through the
    // stroker, which costs 20 times more to rasterize without a GPU.
    series.push({ label: caps[k], stroke: color(k), ...(stack ? { fill: `${color(k)}66` } : {}), width: 1, ...(stepped ? { dash: [6, 3] } : {}), show: true, points: { show: false }, paths: pathFor(lines.length - 1) });
    if (refOf(s) !== null || (!opts.plot && s.capacity?.reference_series_id != null)) {
      lines.push({ item: s, k, ref: true });
      series.push({ label: `${caps[k]} ${s.reference?.label || "limit"}`, stroke: color(k), width: 1, dash: [6, 4], show: true, points: { show: false }, paths: pathFor(lines.length - 1) });
    }
  });
  function columnsOf(line) {
    const id = line.ref ? refOf(line.item) ?? line.item.capacity?.reference_series_id : line.item.id;
    return id === null || id === undefined ? null : cur.plot.get(id) || null;
  }
  function pathFor(li) {
    return (u) => {
      const line = lines[li];
      const s = columnsOf(line);
      if (!line.ref && stack?.draws(line.item)) return { ...stack.paths(u, line.item), clip: null, band: null, gaps: null, flags: 0 };
      if (!line.ref && stack?.hides(line.item)) return { stroke: null, fill: null, clip: null, band: null, gaps: null, flags: 0 };
      const stroke = s && (s.times.length || s.carried_setting) ? linePath(u, s, { from: cur.from, to: cur.to, stepped: line.ref || s.temporal === "setting", markers: !line.ref && s.temporal !== "setting" && s.times.length * 8 < u.bbox.width }) : null;
      return { stroke, fill: null, clip: null, band: null, gaps: null, flags: 0 };
    };
  }
  const nulls = [null, null];
  const data = () => [[cur.from, cur.to], ...lines.map(() => nulls)];

  const showHover = (u) => {
    const left = u.cursor.left;
    if (left === null || left === undefined || left < 0) {
      setText(hover, "\u00a0");
      stack?.hover(null);
      for (const r of rows) if (r.hovered) (r.hovered = false), renderValue(r);
      return;
    }
    // Each series shows its nearest recorded sample at or before the
    // cursor, labelled with that sample's own time, never the cursor's.
    const t = u.posToVal(left, "x");
    const parts = [`${t.toFixed(3)} s`];
    let listed = 0;
    for (const line of lines) {
      if (line.ref) continue;
      const s = columnsOf(line);
      const k = s ? pointAt(s, t, true) : -1;
      const r = rowOf.get(line.item.id);
      if (r && k >= 0) {
        r.value.title = `Recorded sample at ${s.times[k]} elapsed seconds: ${withUnit(s.values[k], unit)}`;
        r.hovered = true;
      }
      if (k < 0 || !shownOf(line.item)) continue;
      if (++listed > 12) {
        if (listed === 13) parts.push("…");
        continue;
      }
      const n = s.counts ? s.counts[k] : 1;
      const outside = s.times[k] < cur.from || s.times[k] > cur.to ? " (outside the window)" : "";
      parts.push(`${caps[line.k]}: ${n > 1 ? `median ${withUnit(s.values[k], unit)} of ${n} events` : withUnit(s.values[k], unit)} @ ${s.times[k].toFixed(3)} s${outside}`);
    }
    setText(hover, parts.join(" · "));
    stack?.hover(t, unit);
  };
  const selectCb = () => opts.onSelect;
  const width = Math.max(160, Math.floor(chartBox.getBoundingClientRect().width || host.clientWidth || 600));
  let u = null;

  // Legend rows: toggle, caption, current value (and capacity summary).
  // A long legend lists the drawn series only, until asked to list all:
  // hundreds of rendered rows would be restyled on every zoom.
  const LONG = 24;
  let listAll = false;
  const listToggle = items.length > LONG ? h("button", { type: "button", class: "ds-metric-list-all" }) : null;
  const legend = h("div", { class: "ds-metric-legend", style: items.length > LONG ? { maxHeight: "24em", overflowY: "auto" } : null });
  const rows = items.map((s, k) => {
    const id = String(s.id);
    const toggle = h("button", { type: "button", class: "ds-metric-legend-toggle", "aria-pressed": "true", title: s.label }, h("i", { class: "swatch", style: { background: color(k) } }), caps[k]);
    toggle.addEventListener("click", () => {
      const nowShown = toggle.getAttribute("aria-pressed") !== "true";
      toggle.setAttribute("aria-pressed", String(nowShown));
      nowShown ? cur.hidden.delete(id) : cur.hidden.add(id);
      if (nowShown && !cur.plot.has(s.id)) {
        // Not asked for yet: the page asks again and updates this chart.
        opts.onToggle?.(id, false);
        return;
      }
      lines.forEach((line, i) => line.item === s && u.setSeries(i + 1, { show: nowShown }));
      markDrawn();
      opts.onToggle?.(id, !nowShown);
    });
    const value = h("span", { class: "ds-metric-value" });
    const cap = s.reference || s.capacity ? h("div", { class: "ds-capacity ds-metric-capacity" }) : null;
    const row = h("div", { class: "ds-metric-legend-row", "data-series-id": id }, toggle, value, cap);
    row.appendChild(h("details", { class: "ds-metric-labels ds-metric-label-details" }, h("summary", null, "Labels"), h("pre", null, JSON.stringify({ label: s.label, raw_name: s.raw_name, endpoint: s.endpoint, host: s.host, worker: s.worker, gpu: s.gpu, rank: s.rank, labels: s.labels }, null, 1))));
    legend.appendChild(row);
    return { s, k, row, toggle, value, cap, listed: true };
  });
  const rowOf = new Map(rows.map((r) => [r.s.id, r]));
  if (listToggle) {
    listToggle.addEventListener("click", () => {
      listAll = !listAll;
      renderChrome();
    });
    host.appendChild(listToggle);
  }
  host.appendChild(legend);

  function renderValue(r) {
    const { s, k, value, cap } = r;
    const p = cur.plot.get(s.id);
    let text = "not drawn";
    let title = null;
    if (p && p.last !== null && p.last_time !== null) {
      const n = p.last_count ?? 1;
      const shown = n > 1 ? `median ${withUnit(p.last, s.unit)} (${n} events)` : withUnit(p.last, s.unit);
      title = `${s.derived ? "Derived" : "Recorded"} ${kindWord(s)} at ${p.last_time} elapsed seconds: ${shown}${n > 1 ? " (median is derived)" : ""}`;
      text = `${shown} @ ${p.last_time.toFixed(3)} s`;
    } else if (p && p.carried_values) {
      // Conflicting settings recorded at one time: every value, none wins.
      const shown = p.carried_values.map((v) => (v === null ? "none" : withUnit(v, s.unit))).join(" and ");
      title = `Recorded ${kindWord(s)}s at ${p.carried_setting[0]} elapsed seconds, before the window, disagree: ${shown}`;
      text = `held ${shown} (conflicting) @ ${p.carried_setting[0].toFixed(3)} s`;
    } else if (p) text = "no sample in range";
    if (r.text !== text) {
      setText(value, (r.text = text));
      value.classList.toggle("muted", title === null);
    }
    if (title === null) value.removeAttribute("title");
    else if (value.title !== title) value.title = title;
    const capKey = cap ? JSON.stringify(p?.capacity ?? null) : null;
    if (cap && r.capKey !== capKey) {
      r.capKey = capKey;
      clear(cap);
      if (p?.capacity) cap.append(h("span", { class: "ds-limit-key" }, h("i", { class: "dash", style: { borderColor: color(k) } }), `${s.reference?.label || "Limit"} (dashed)`), ...capacityLines(s, p.capacity).map((t) => h("span", null, t)));
    }
  }

  // data-drawn-ids is a JSON array of every series the chart holds, hidden
  // ones included; visibility is read from the legend toggles.
  function markDrawn() {
    const ids = JSON.stringify(items.map((s) => s.id));
    if (chartBox.dataset.drawnIds !== ids) chartBox.dataset.drawnIds = ids;
  }

  // renderChrome brings the count, controls, notes and legend up to date,
  // touching only what changed: a zoom usually changes the values alone.
  let chromeKey = null;
  function renderChrome() {
    const shown = items.filter(shownOf);
    const hiddenCount = items.length - shown.length;
    const firstN = opts.firstN || PALETTE.length;
    const drawn = shown.map((s) => cur.plot.get(s.id)).filter(Boolean);
    const cut = drawn.filter((p) => p.points_truncated);
    const summarized = drawn.find((p) => p.bucket_seconds);
    const medians = drawn.some((p) => p.medians && p.counts.some((n) => n > 1));
    const noteTexts = [
      cut.length ? `Drawn: the first ${cut[0].times.length.toLocaleString("en-US")} of ${cut[0].points_total.toLocaleString("en-US")} recorded rows in range${cut.length > 1 ? ` (and ${cut.length - 1} more series cut the same way)` : ""}; narrow the range to see the rest. Statistics and values below cover the whole range.` : null,
      stack?.note(),
      summarized ? `Drawn from each ${fmtBucket(summarized.bucket_seconds)} bucket's recorded minimum and maximum samples (${summarized.points_total.toLocaleString("en-US")} rows in range); zoom in for every row.` : null,
    ];
    const key = `${shown.length} ${hiddenCount}`;
    if (key !== chromeKey) {
      chromeKey = key;
      count.textContent = `${shown.length} shown / ${items.length} recorded series`;
      clear(controls);
      if (hiddenCount > 0 && opts.onShowAll) controls.appendChild(h("button", { type: "button", class: "ds-metric-show-all", onclick: () => opts.onShowAll() }, `${hiddenCount} more series hidden — show all`));
      if (shown.length > firstN && opts.onShowFirst) controls.appendChild(h("button", { type: "button", class: "ds-metric-show-first", onclick: () => opts.onShowFirst(firstN) }, `Show only the first ${firstN}`));
    }
    const noteLines = noteTexts.filter(Boolean).map((text) => ({ cls: "ds-metric-note muted", text }));
    const neighboursOnly = drawn.filter((p) => p.samples === 0 && p.times.length && p.temporal !== "setting");
    if (neighboursOnly.length) noteLines.push({ cls: "ds-metric-note ds-metric-outside muted", text: `No sample inside this window for ${neighboursOnly.length === drawn.length ? "the drawn series" : `${neighboursOnly.length} of the drawn series`}: the recorded samples on either side, outside the window, are drawn ringed.` });
    if (medians) noteLines.push({ cls: "ds-metric-derived muted", text: "Request events sharing a timestamp are drawn as their median (derived, marked ×N with the event count); queries return every event." });
    syncLines(notes, noteLines);
    const any = drawn.some((p) => p.samples > 0 || p.times.length > 0 || p.carried_setting);
    if (!any && !empty.isConnected) chartBox.before(empty);
    if (any && empty.isConnected) empty.remove();
    if (listToggle) listToggle.textContent = listAll ? "List drawn series only" : `List all ${items.length} series`;
    for (const r of rows) {
      const listed = !listToggle || listAll || shownOf(r.s);
      if (r.listed !== listed) r.row.style.display = (r.listed = listed) ? "" : "none";
      const shown = shownOf(r.s);
      const pressed = String(shown);
      if (r.toggle.getAttribute("aria-pressed") !== pressed) r.toggle.setAttribute("aria-pressed", pressed);
      // A series not drawn keeps its "not drawn" line: with hundreds in
      // a family, only the drawn ones change on a zoom.
      if (shown || r.text !== "not drawn") renderValue(r);
    }
    markDrawn();
  }

  function setCurrent(o) {
    const plot = columns(o, items);
    const hidden = new Set(o.hidden || []);
    cur = { from: o.from, to: o.to, plot, hidden, yRange: [0, 1] };
    const shown = lines.filter((line) => shownOf(line.item)).map(columnsOf).filter(Boolean);
    stack?.update(cur, o.stack?.exact, width);
    if (stack) chartBox.dataset.stacked = stack.active.id;
    const bandTop = stack?.extent();
    cur.yRange = yRange(bandTop ? [...shown, bandTop] : shown, items.some((s) => shownOf(s) && plot.get(s.id)?.capacity));
  }

  setCurrent(opts);
  // The plot covers exactly the tracks' lanes (timeaxis.js): the y axis
  // fills the gutter and the right padding matches the lanes' margin, so
  // a time is at the same x here as on every track.
  let ins = insets(chartBox);
  u = new window.uPlot(
    {
      width,
      height: 180,
      legend: { show: false },
      cursor: { sync: { key: opts.syncKey || "dsight-metrics" }, drag: { x: true, y: false, setScale: false }, points: { show: false } },
      scales: { x: { time: false, range: () => [cur.from, cur.to] }, y: { range: () => cur.yRange } },
      padding: [null, () => ins.right, null, 0],
      axes: [{ label: "", size: 30 }, { size: () => Math.max(ins.left - Y_LABEL, 0), labelSize: Y_LABEL, label: unit || "" }],
      series: series.map((s, i) => (i === 0 ? s : { ...s, show: shownOf(lines[i - 1].item) })),
      hooks: {
        setCursor: [showHover],
        draw: [
          (uu) => {
            for (const line of lines) {
              const s = !line.ref && shownOf(line.item) ? columnsOf(line) : null;
              if (s?.counts) countLabels(uu, s, color(line.k));
            }
            // The total line goes over the bands it bounds.
            const total = stack ? lines.findIndex((l) => !l.ref && l.item.id === stack.totalId && shownOf(l.item)) : -1;
            const p = total >= 0 ? pathFor(total)(uu).stroke : null;
            if (p) {
              const { ctx, bbox } = uu;
              ctx.save();
              ctx.beginPath();
              ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
              ctx.clip();
              ctx.strokeStyle = color(lines[total].k);
              ctx.lineWidth = 1.5 * devicePixelRatio;
              ctx.stroke(p);
              ctx.restore();
            }
          },
        ],
        setSelect: [
          (uu) => {
            const sel = uu.select;
            const cb = selectCb();
            if (sel.width >= 4 && cb) {
              const a = uu.posToVal(sel.left, "x");
              const b = uu.posToVal(sel.left + sel.width, "x");
              uu.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
              if (b > a) cb(Math.max(a, 0), b);
            } else uu.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
          },
        ],
      },
    },
    data(),
    chartBox,
  );
  renderChrome();

  const onResize = () => {
    const w = Math.floor(chartBox.getBoundingClientRect().width);
    const now = insets(chartBox);
    const moved = now.left !== ins.left || now.right !== ins.right;
    ins = now;
    if (w > 0 && (moved || Math.abs(w - u.width) > 2)) u.setSize({ width: w, height: 180 });
  };
  window.addEventListener("resize", onResize);
  const chart = {
    host,
    uplot: u,
    get drawnIds() {
      return JSON.parse(chartBox.dataset.drawnIds || "[]").map(String);
    },
    // fits: the same family's series, drawn the same way.
    fits: (o) => !!o.plot === !!opts.plot && !!o.stack === !!stack && o.unit === unit && [...o.items].sort((a, b) => a.id - b.id).map((s) => s.id).join(",") === ids,
    update(o) {
      opts = { ...opts, ...o, previous: undefined };
      setCurrent(o);
      u.batch(() => {
        lines.forEach((line, i) => {
          const show = shownOf(line.item);
          if (u.series[i + 1].show !== show) u.setSeries(i + 1, { show }, false);
        });
        u.setData(data());
      });
      renderChrome();
    },
    // rehearse redraws what is drawn, unchanged: idle-time warm-up of
    // the drawing code a zoom runs (rehearse.js).
    rehearse() {
      if (!u) return;
      u.redraw(true, true);
      renderChrome();
    },
    destroy() {
      if (!u) return;
      window.removeEventListener("resize", onResize);
      u.destroy();
      u = null;
    },
  };
  return chart;
}

window.DSightMetricCharts = { mount };

// syncLines makes box's children one div per line, changing only the text
// that differs: the notes change on most zooms, and new elements would each
// need their style resolved again.
function syncLines(box, lines) {
  const same = box.children.length === lines.length && lines.every((l, i) => box.children[i].className === l.cls);
  if (!same) {
    clear(box);
    for (const l of lines) box.appendChild(h("div", { class: l.cls }, l.text));
    return;
  }
  lines.forEach((l, i) => {
    const el = box.children[i];
    setText(el, l.text);
  });
}
