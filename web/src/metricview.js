// The Metrics section: a searchable, grouped family picker with Pin/Unpin,
// and one card per shown family (pinned families in pin order, then the
// current one). Cards follow the shared range: each range change asks the
// engine for the plot of the shown series only (plotSeries) and redraws
// through window.DSightMetricCharts.mount, looked up at render time, which
// updates the card's chart in place.

import { $, h, clear, setText } from "./dom.js";
import { ask } from "./engine.js";
import { familySeries, plotSeries, plotHeld, PlotBuffers } from "./metricdata.js";
import { exactColumns } from "./stackbands.js";
import "./metricchart.js";

export const chartKey = (name) => JSON.stringify(["metric", name]);

// FIRST_SERIES is how many series a family shows before its legend is
// touched (one per palette colour); the rest are listed, off.
export const FIRST_SERIES = 12;

function kindSentence(f) {
  if (f.value_kind === "histogram" || f.value_kind === "bucket") return "Values are histogram bucket counts.";
  if (f.counter) return "Values are the raw cumulative counter.";
  if (f.derived) return "Values are derived from the requests at build time, not recorded by any source.";
  return "Values are recorded sample values.";
}

export class MetricsSection {
  // early is the card drawn from index.html before the engine loaded
  // (firstchart.js), {name, card}, which the section adopts.
  constructor(view, early = null) {
    this.view = view;
    // The catalog lists families in display order (component, group,
    // order, name), one run per component and group: the picker keeps it.
    this.families = ask("metric_families", {}).items;
    this.byName = new Map(this.families.map((f) => [f.name, f]));
    this.defaultName = ask("default_metric", {});
    this.cards = new Map(); // name → {el, panel, chart, drawnFor, gen}
    if (early) this.cards.set(early.name, early.card);
    this.filter = "";
    this.build();
    window.addEventListener("resize", () => {
      for (const card of this.cards.values()) card.width = 0; // read again at the next load
    });
  }

  build() {
    const search = h("input", { id: "metricSearch", type: "search", placeholder: "Search metrics (name, title, component, group)…", "aria-label": "Search metrics" });
    const select = h("select", { id: "workerMetric", "aria-label": "Metric" });
    const pin = h("button", { id: "pinMetric", type: "button" }, "Pin");
    const count = h("span", { id: "metricCount", class: "muted" });
    const controls = h("div", { class: "metric-controls" }, search, select, pin, count);
    // A section drawn early (firstchart.js) gets its controls; else it is built here.
    this.section = document.getElementById("metrics") || metricsSection();
    this.cardsEl = this.section.querySelector("#metricCards");
    this.cardsEl.before(controls);
    // Filtered in the same task as the input event: scripts read the
    // options right after typing (no debounce).
    search.addEventListener("input", () => {
      this.filter = search.value;
      this.renderControls();
    });
    select.addEventListener("change", () => this.guard(() => this.setMetric(select.value)));
    pin.addEventListener("click", () => this.guard(() => this.togglePin(this.view.state.metric)));
  }

  guard(fn) {
    try {
      $("error").hidden = true;
      fn();
    } catch (err) {
      const box = $("error");
      box.hidden = false;
      clear(box).appendChild(h("span", null, String(err.message || err)));
    }
  }

  known(name) {
    return this.byName.has(name);
  }

  setMetric(name) {
    if (!this.known(name)) throw new Error(`Unknown metric ${JSON.stringify(name)}`);
    this.view.state.metric = name;
    this.view.render();
  }

  togglePin(name) {
    const st = this.view.state;
    if (!this.known(name)) return;
    const i = st.pinnedMetrics.indexOf(name);
    if (i >= 0) st.pinnedMetrics.splice(i, 1);
    else st.pinnedMetrics.push(name);
    this.view.render();
  }

  move(name, delta) {
    const p = this.view.state.pinnedMetrics;
    const i = p.indexOf(name);
    const j = i + delta;
    if (i < 0 || j < 0 || j >= p.length) return;
    [p[i], p[j]] = [p[j], p[i]];
    this.view.render();
  }

  matches(f) {
    const q = this.filter.trim().toLowerCase();
    if (!q) return true;
    return [f.name, f.title, f.component, f.group, f.description].some((v) => v && v.toLowerCase().includes(q));
  }

  renderControls() {
    const st = this.view.state;
    const select = $("workerMetric");
    const shown = this.families.filter((f) => this.matches(f));
    const cur = this.byName.get(st.metric);
    const extra = cur && !shown.includes(cur) ? cur : null;
    // Every zoom renders the controls; the options are rebuilt only when
    // the list changes, since new elements cost a style resolution each.
    const key = `${shown.map((f) => f.name).join("\0")}\0\0${extra?.name ?? ""}`;
    if (key !== this.controlsKey) {
      this.controlsKey = key;
      clear(select);
      const option = (f) => h("option", { value: f.name, title: f.derived ? f.description : undefined }, `${f.title || f.name} — ${f.name}${f.derived ? " · derived" : ""}${f.samples ? "" : " (no samples)"}`);
      let group = null;
      let last = null;
      for (const f of shown) {
        const label = `${f.component} / ${f.group}`;
        if (label !== last) {
          group = h("optgroup", { label });
          select.appendChild(group);
          last = label;
        }
        group.appendChild(option(f));
      }
      if (extra) select.appendChild(h("optgroup", { label: shown.length ? "Current selection" : "No matches · current selection" }, option(extra)));
    }
    if (cur && select.value !== cur.name) select.value = cur.name;
    setText($("metricCount"), `${shown.length} / ${this.families.length} metrics`);
    setText($("pinMetric"), st.pinnedMetrics.includes(st.metric) ? "Unpin" : "Pin");
    $("pinMetric").disabled = !cur;
  }

  shownNames() {
    const st = this.view.state;
    const names = [...st.pinnedMetrics];
    if (st.metric !== null && !names.includes(st.metric)) names.push(st.metric);
    return names;
  }

  // render reconciles the cards with the state and reloads those whose
  // range or legend changed; it returns the promise of their drawing.
  render() {
    this.renderControls();
    const st = this.view.state;
    const names = this.shownNames();
    for (const [name, card] of this.cards) {
      if (!names.includes(name)) {
        card.chart?.destroy();
        card.el.remove();
        this.cards.delete(name);
      }
    }
    const loads = [];
    names.forEach((name, k) => {
      let card = this.cards.get(name);
      if (!card) {
        card = newCard(name);
        this.cards.set(name, card);
      }
      this.renderHeader(card, name, k, st.pinnedMetrics);
      // Move a card only when it is out of place: re-inserting a mounted
      // chart makes the browser restyle and repaint it on every zoom.
      const at = this.cardsEl.children[k] ?? null;
      if (at !== card.el) this.cardsEl.insertBefore(card.el, at);
      loads.push(this.load(card, name));
    });
    return Promise.all(loads);
  }

  renderHeader(card, name, k, pinned) {
    const f = this.byName.get(name);
    const isPinned = pinned.includes(name);
    // Rendered on every zoom; rebuilt only when what it shows changes.
    const key = `${isPinned} ${pinned.indexOf(name)} ${pinned.length}`;
    if (card.headKey === key) return;
    card.headKey = key;
    const head = clear(card.head);
    head.append(...familyHeading(f, isPinned));
    if (isPinned) {
      const i = pinned.indexOf(name);
      const btn = (action, text, label, disabled, fn) =>
        h("button", {
          type: "button", "data-action": action, "aria-label": label, title: label, disabled,
          onclick: () => {
            this.guard(fn);
            this.keepFocus(name, action);
          },
        }, text);
      head.appendChild(
        h("div", { class: "metric-actions" },
          btn("move-metric-up", "↑", "Move up", i === 0, () => this.move(name, -1)),
          btn("move-metric-down", "↓", "Move down", i === pinned.length - 1, () => this.move(name, 1)),
          btn("unpin-metric", "Unpin", "Unpin", false, () => this.togglePin(name))),
      );
    }
  }

  // remountAll makes the next render mount every visible chart again
  // through window.DSightMetricCharts.mount, even for an unchanged view:
  // scripts that wrap the mounter observe each setState (page-compat.md).
  remountAll() {
    for (const card of this.cards.values()) card.drawnFor = null;
  }

  // keepFocus puts the keyboard focus back after a card action rebuilt the
  // card's header: on the same action of the card when it is still there
  // and enabled, else on another control of that card, else on the
  // selector's Pin button; never on <body>.
  keepFocus(name, action) {
    const el = this.cards.get(name)?.el;
    const actions = el?.isConnected ? [...el.querySelectorAll(".metric-actions button")].filter((b) => !b.disabled) : [];
    const target = actions.find((b) => b.dataset.action === action) || actions[0] || $("pinMetric");
    target?.focus();
  }

  // hiddenFor is a chart's hidden series (ids as strings): its saved
  // legend state, else every series after the first FIRST_SERIES in
  // catalog order, so a family of hundreds of series (one per GPU) opens
  // with a readable chart and asks only for what it draws.
  hiddenFor(name, series) {
    const entry = this.view.state.metricCharts[chartKey(name)];
    if (entry) return new Set((entry.hidden || []).map(String));
    return new Set(series.slice(FIRST_SERIES).map((s) => String(s.id)));
  }

  setHidden(name, hidden) {
    this.view.state.metricCharts[chartKey(name)] = { hidden: [...hidden].map(String).sort((x, y) => Number(x) - Number(y)) };
    this.view.announce();
    this.view.renderMetrics();
  }

  // rehearse asks for each drawn chart's plot of [from, to] from the
  // shards already held, drops it, and redraws the chart unchanged
  // (rehearse.js).
  rehearse(from, to) {
    for (const [name, card] of this.cards) {
      if (!card.chart?.rehearse || card.drawnFor === null) continue;
      const series = familySeries(name);
      const { ids, pixels } = question(series, this.hiddenFor(name, series), card.width);
      plotHeld({ from, to, pixels, series: ids }, card.buffers);
      card.chart.rehearse();
    }
  }

  async load(card, name) {
    const st = this.view.state;
    const series = familySeries(name);
    const hidden = this.hiddenFor(name, series);
    const panel = card.panel;
    // The width is read once per card and after a resize: reading it on
    // every zoom would force a layout of the freshly re-rendered page.
    if (!card.width) card.width = chartWidth(panel);
    const width = card.width;
    const want = `${st.from}|${st.to}|${[...hidden].join(",")}|${width}`;
    if (card.drawnFor === want && card.chart) return;
    const gen = ++card.gen;
    const { from, to } = st;
    const started = performance.now();
    if (!card.chart) {
      panel.style.minHeight = `${panel.offsetHeight}px`; // keep the height while loading
      clear(panel).appendChild(h("p", { class: "muted" }, "Loading recorded metric samples…"));
    }
    try {
      // Only the shown series (and their limit series) are asked for. A
      // plot of width/2 pixels has at least one bucket per pixel (two to
      // four per plot pixel), each drawn by its recorded min and max: the
      // exact rows while they are at most one per pixel. Many shown series
      // share a budget of points instead (still each bucket's real
      // extremes, in wider buckets).
      const { ids, pixels } = question(series, hidden, width);
      card.buffers ||= new PlotBuffers();
      const stale = () => gen !== card.gen; // a newer load replaced this one
      const answer = await plotSeries({ from, to, pixels, ids, family: name, buffers: card.buffers, stale });
      if (stale()) return;
      const f = this.byName.get(name);
      // Stacked bands add step values: asked for exactly where few (stackbands.js).
      const exact = f.stack_by?.length ? await exactColumns({ f, items: series, hidden, answer, from, to, stale }) : null;
      if (stale()) return;
      measure("dsight:metric-answer", { start: started });
      card.chart = window.DSightMetricCharts.mount(panel, {
        from,
        to,
        unit: f.unit,
        items: series,
        plot: answer.series,
        stack: f.stack_by?.length ? { by: f.stack_by, within: f.stack_within, exact } : null,
        hidden,
        previous: card.chart,
        firstN: FIRST_SERIES,
        onSelect: (a, b) => this.guard(() => this.view.commitRange(a, b)),
        onToggle: (id, isHidden) => {
          const next = this.hiddenFor(name, series);
          isHidden ? next.add(id) : next.delete(id);
          this.setHidden(name, next);
        },
        onShowAll: () => this.guard(() => this.setHidden(name, [])),
        onShowFirst: (n) => this.guard(() => this.setHidden(name, series.slice(n).map((s) => String(s.id)))),
      });
      card.buffers.swap();
      card.drawnFor = want;
      panel.style.minHeight = "";
      markFirstChart();
      measure("dsight:metric-chart", { start: started, detail: { name, series: ids.length, pixels } });
    } catch (err) {
      if (gen !== card.gen) return;
      card.chart?.destroy();
      card.chart = null;
      card.drawnFor = null;
      clear(panel).appendChild(h("p", { class: "error" }, `Could not load this metric: ${err.message || err}`));
      panel.style.minHeight = "";
      throw err;
    }
  }
}

// metricsSection builds the empty Metrics section in its place in the page.
export function metricsSection() {
  const section = h("section", { id: "metrics", class: "metrics", "aria-label": "Metrics" }, h("h2", null, "Metrics"), h("div", { id: "metricCards", class: "metric-cards" }));
  const column = document.getElementById("trackColumn");
  if (column) column.appendChild(section); // on the tracks' time axis (timeaxis.js)
  else document.querySelector("footer.legend").before(section);
  return section;
}

// newCard is an empty card for family name: a head and a chart panel.
export function newCard(name) {
  const panel = h("div", { class: "dsight-metric-panel", "data-metric-key": chartKey(name) });
  const head = h("div", { class: "metric-card-head" });
  const el = h("article", { class: "metric-card", "data-metric-name": name }, head, panel);
  return { el, head, panel, chart: null, drawnFor: null, gen: 0, width: 0 };
}

// familyHeading is a card head's content: title, name, description and notes.
export function familyHeading(f, pinned = false) {
  const out = [
    h(
      "div",
      { class: "metric-title" },
      h("strong", null, f.title || f.name),
      " ",
      h("code", null, f.name),
      f.derived ? h("span", { class: "metric-derived", title: `Derived at build time, not recorded: ${f.description}` }, "derived") : null,
      pinned ? h("span", { class: "badge" }, "Pinned") : null,
    ),
    h("p", { class: "muted metric-desc" }, `${f.description} ${kindSentence(f)}`, f.samples ? null : " No samples in the captured trace interval."),
  ];
  if (f.quality) out.push(h("details", null, h("summary", null, "Metric notes"), h("p", null, f.quality)));
  return out;
}

// chartWidth is the width a card's chart is drawn at, read from its panel.
export function chartWidth(panel) {
  return Math.min(Math.max(Math.round(panel.clientWidth), 100), 4096);
}

// markFirstChart records, once, when the page first drew a metric chart.
// It runs on every zoom, so it keeps a flag instead of listing the marks.
let firstChartMarked = false;
export function markFirstChart() {
  if (firstChartMarked) return;
  firstChartMarked = true;
  performance.mark("dsight:first-chart");
}

// question is what a chart of width pixels asks the engine for: the ids of
// its shown series and of their limit series, and the plot's pixels.
function question(series, hidden, width) {
  const shown = series.filter((s) => !hidden.has(String(s.id)));
  const ids = [...new Set(shown.flatMap((s) => (s.reference?.series_id != null ? [s.id, s.reference.series_id] : [s.id])))];
  const pixels = Math.max(64, Math.min(Math.ceil(width / 2), Math.floor((3 * width) / Math.max(1, shown.length))));
  return { ids, pixels };
}

// measure records a user-timing entry for benchmarks and devtools, keeping
// at most the latest few hundred per name over a long session.
function measure(name, options) {
  // Counted here: listing the entries to count them cost ~0.3 ms a zoom.
  const n = (measured.get(name) || 0) + 1;
  if (n > 256) performance.clearMeasures(name);
  measured.set(name, n > 256 ? 1 : n);
  performance.measure(name, options);
}

const measured = new Map(); // user-timing entries recorded per name since the last clear
