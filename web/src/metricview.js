// The Metrics section: a searchable, grouped family picker with Pin/Unpin,
// and one card per shown family (pinned families in pin order, then the
// current one). Cards follow the shared range: each range change reloads
// the visible window through queryMetrics and redraws through
// window.DSightMetricCharts.mount, looked up at render time.

import { $, h, clear } from "./dom.js";
import { ask } from "./engine.js";
import { queryMetrics } from "./metricdata.js";
import "./metricchart.js";

const COMPONENT_ORDER = ["Frontend", "Router", "Workers", "GPU", "Host"];

export const chartKey = (name) => JSON.stringify(["metric", name]);

// sortFamilies orders families by component (Frontend, Router, Workers, GPU,
// Host, then others by name), then group_order, group, order and name.
export function sortFamilies(fams) {
  const rank = (c) => {
    const i = COMPONENT_ORDER.indexOf(c);
    return i < 0 ? COMPONENT_ORDER.length : i;
  };
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  return [...fams].sort((a, b) => rank(a.component) - rank(b.component) || cmp(a.component, b.component) || a.group_order - b.group_order || cmp(a.group, b.group) || a.order - b.order || cmp(a.name, b.name));
}

// defaultMetric: trtllm_num_requests_running if present, else the first
// family with samples, else the first family.
export function defaultMetric(fams) {
  if (!fams.length) return null;
  return (fams.find((f) => f.name === "trtllm_num_requests_running") || fams.find((f) => f.samples > 0) || fams[0]).name;
}

function kindSentence(f) {
  if (f.value_kind === "histogram" || f.value_kind === "bucket") return "Values are histogram bucket counts.";
  if (f.counter) return "Values are the raw cumulative counter.";
  return "Values are recorded sample values.";
}

export class MetricsSection {
  constructor(view) {
    this.view = view;
    this.families = sortFamilies(ask("metric_families", {}).items);
    this.byName = new Map(this.families.map((f) => [f.name, f]));
    this.cards = new Map(); // name → {el, panel, chart, drawnFor, gen}
    this.filter = "";
    this.build();
  }

  build() {
    const search = h("input", { id: "metricSearch", type: "search", placeholder: "Search metrics (name, title, component, group)…", "aria-label": "Search metrics" });
    const select = h("select", { id: "workerMetric", "aria-label": "Metric" });
    const pin = h("button", { id: "pinMetric", type: "button" }, "Pin");
    const count = h("span", { id: "metricCount", class: "muted" });
    this.cardsEl = h("div", { id: "metricCards", class: "metric-cards" });
    this.section = h("section", { id: "metrics", class: "metrics", "aria-label": "Metrics" }, h("h2", null, "Metrics"), h("div", { class: "metric-controls" }, search, select, pin, count), this.cardsEl);
    document.querySelector("footer.legend").before(this.section);
    let timer = null;
    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.filter = search.value;
        this.renderControls();
      }, 120);
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
    clear(select);
    const shown = this.families.filter((f) => this.matches(f));
    const option = (f) => h("option", { value: f.name }, `${f.title || f.name} — ${f.name}${f.samples ? "" : " (no samples)"}`);
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
    const cur = this.byName.get(st.metric);
    if (cur && !shown.includes(cur)) select.appendChild(h("optgroup", { label: shown.length ? "Current selection" : "No matches · current selection" }, option(cur)));
    if (cur) select.value = cur.name;
    $("metricCount").textContent = `${shown.length} / ${this.families.length} metrics`;
    $("pinMetric").textContent = st.pinnedMetrics.includes(st.metric) ? "Unpin" : "Pin";
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
        card = this.makeCard(name);
        this.cards.set(name, card);
      }
      this.renderHeader(card, name, k, st.pinnedMetrics);
      this.cardsEl.appendChild(card.el); // moving keeps the mounted chart
      loads.push(this.load(card, name));
    });
    return Promise.all(loads);
  }

  makeCard(name) {
    const panel = h("div", { class: "dsight-metric-panel", "data-metric-key": chartKey(name) });
    const head = h("div", { class: "metric-card-head" });
    const el = h("article", { class: "metric-card", "data-metric-name": name }, head, panel);
    return { el, head, panel, chart: null, drawnFor: null, gen: 0 };
  }

  renderHeader(card, name, k, pinned) {
    const f = this.byName.get(name);
    const isPinned = pinned.includes(name);
    const head = clear(card.head);
    head.appendChild(h("div", { class: "metric-title" }, h("strong", null, f.title || f.name), " ", h("code", null, f.name), isPinned ? h("span", { class: "badge" }, "Pinned") : null));
    head.appendChild(h("p", { class: "muted metric-desc" }, `${f.description} ${kindSentence(f)}`, f.samples ? null : " No samples in the captured trace interval."));
    if (f.quality) head.appendChild(h("details", null, h("summary", null, "Metric notes"), h("p", null, f.quality)));
    if (isPinned) {
      const i = pinned.indexOf(name);
      const btn = (action, text, label, disabled, fn) => h("button", { type: "button", "data-action": action, "aria-label": label, title: label, disabled, onclick: () => this.guard(fn) }, text);
      head.appendChild(
        h("div", { class: "metric-actions" },
          btn("move-metric-up", "↑", "Move up", i === 0, () => this.move(name, -1)),
          btn("move-metric-down", "↓", "Move down", i === pinned.length - 1, () => this.move(name, 1)),
          btn("unpin-metric", "Unpin", "Unpin", false, () => this.togglePin(name))),
      );
    }
  }

  async load(card, name) {
    const st = this.view.state;
    const key = chartKey(name);
    const hidden = new Set(st.metricCharts[key]?.hidden || []);
    const want = `${st.from}|${st.to}|${[...hidden].join(",")}`;
    if (card.drawnFor === want && card.chart) return;
    const gen = ++card.gen;
    const { from, to } = st;
    const panel = card.panel;
    panel.style.minHeight = `${panel.offsetHeight}px`; // keep the height while reloading
    if (!card.chart) clear(panel).appendChild(h("p", { class: "muted" }, "Loading recorded metric samples…"));
    try {
      // A family of hundreds of series (one per GPU) draws them overlapping:
      // fewer points each keep the answer small without losing any peak.
      const width = Math.min(Math.max(Math.round(panel.clientWidth), 100), 4096);
      const fam = this.byName.get(name);
      const pixels = Math.max(64, Math.min(width, Math.floor((width * 24) / Math.max(1, fam?.series_count || 1))));
      const answer = await queryMetrics({ from, to, name, points: true, pixels, limit: 1000 });
      const refs = new Map();
      const refNames = new Set(answer.items.filter((s) => s.capacity && s.reference).map((s) => s.reference.name));
      for (const rn of refNames) {
        const ra = await queryMetrics({ from, to, name: rn, points: true, pixels, limit: 1000 });
        for (const r of ra.items) refs.set(r.id, r);
      }
      if (gen !== card.gen) return; // a newer load replaced this one
      card.chart?.destroy();
      const f = this.byName.get(name);
      card.chart = window.DSightMetricCharts.mount(panel, {
        from,
        to,
        unit: f.unit,
        items: answer.items,
        references: refs,
        hidden,
        onSelect: (a, b) => this.guard(() => this.view.commitRange(a, b)),
        onToggle: (id, isHidden) => {
          const entry = st.metricCharts[key] || { hidden: [] };
          const set = new Set(entry.hidden);
          isHidden ? set.add(id) : set.delete(id);
          st.metricCharts[key] = { hidden: [...set].sort((x, y) => Number(x) - Number(y)) };
          card.drawnFor = `${from}|${to}|${st.metricCharts[key].hidden.join(",")}`;
          this.view.announce();
        },
      });
      card.drawnFor = want;
      panel.style.minHeight = "";
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
