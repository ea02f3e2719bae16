// The Nsight tracks: per chosen profile a heading, the selected request's
// bar with its preprocessing and worker.operation spans, and the profile's
// thread lanes on a canvas — the precomputed density while the window's
// chunks hold more than the exact threshold, the exact ranges below it.
// Each render cancels the loads of the one before (a newer view change
// makes them stale); whenDetailsReady() awaits the latest.

import { h, setText, fmtDuration } from "./dom.js";
import { morph } from "./morph.js";
import { ask } from "./engine.js";
import { fitRange } from "./state.js";
import { nsysView, askDetail, NSYS_ROW_FLOATS } from "./nsightdata.js";
import { newLoadTiming } from "./loader.js";
import { prefetchAround, prefetchCancel } from "./nsightprefetch.js";
import { exactRects, sizeCanvas as sizeLaneCanvas, LANE_H, LANE_GAP } from "./nsightdraw.js";
import { rehearseNsight } from "./nsightrehearse.js";

// laneX places time t on a track lane as a fraction of its width, the
// shared time axis's mapping (timeaxis.js; unclamped, so a range crossing
// an edge is cut by the canvas). Every Nsight drawing goes through it.
export { laneX } from "./timeaxis.js";
import { laneX } from "./timeaxis.js";

const DENSITY_H = 44;
const CAPTION_H = 14;
// nameColor is a name's colour, the same at every zoom and in the Nsight
// tab's table (a hash of the name picks it).
const colors = new Map();
export function nameColor(name) {
  let c = colors.get(name);
  if (c === undefined) {
    let x = 2166136261;
    for (let i = 0; i < name.length; i++) x = Math.imul(x ^ name.charCodeAt(i), 16777619);
    c = PALETTE[(x >>> 0) % PALETTE.length];
    if (colors.size < 4096) colors.set(name, c);
  }
  return c;
}
const PALETTE = ["#4e79a7", "#59a14f", "#9c755f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#f28e2b", "#bab0ac"];

export class NsightSection {
  constructor(view) {
    this.view = view;
    this.profiles = ask("profiles", { limit: 1000 }).items;
    this.controller = null;
    this.views = new Map(); // profile id → last drawn {header, rows, buffer}
    this.buffers = new Map(); // profile id → its answer buffers (nsysView's into)
    this.cpu = null; // last hotspots answer of the current profile
    this.renders = 0;
    // The idle-time rehearsal's state (nsightrehearse.js): rounds done and
    // tried, its answer buffer and its off-screen block.
    this.rehearsal = { done: 0, tried: 0, buffer: undefined, block: null };
  }

  // rehearseDraw draws view v of profile p into an off-screen block as a
  // zoom would draw it on screen, at the shown lane's width.
  rehearseDraw(p, v) {
    const r = this.rehearsal;
    const shown = this.blocks?.find((b) => b.profile === p.id);
    if (!shown) return;
    if (!r.block || r.block.profile !== p.id) r.block = this.block(p);
    laneWidths.set(r.block.lane, laneWidth(shown.lane)); // never observed: not in the document
    r.block.draw(v);
  }

  usable(p) {
    return p.event_count > 0 || p.cpu_samples > 0;
  }

  // profileFor is the first usable profile of worker (and rank, compared
  // as a string, when given), or null.
  profileFor(worker, rank) {
    return this.profiles.find((p) => p.worker === worker && (rank === undefined || rank === null || String(p.rank) === String(rank)) && this.usable(p)) || null;
  }

  byId(id) {
    return this.profiles.find((p) => p.id === id) || null;
  }

  current() {
    const s = this.view.state;
    return (s.profile !== null && this.byId(s.profile)) || this.profiles.find((p) => this.usable(p)) || this.profiles[0] || null;
  }

  // chosen lists the profiles drawn: the current one, or in compare mode
  // the frontend and the selected request's workers, frontend, prefill,
  // decode.
  chosen() {
    const s = this.view.state;
    const cur = this.current();
    const r = this.view.selected();
    if (!s.compareNsys || !r) return cur ? [cur] : [];
    const order = { frontend: 0, prefill: 1, decode: 2, agg: 3 };
    const workers = ["frontend", ...r.workers].sort((a, b) => (order[a.split("-")[0]] ?? 9) - (order[b.split("-")[0]] ?? 9) || a.localeCompare(b));
    const out = [];
    for (const w of workers) {
      const p = cur && cur.worker === w ? cur : this.profileFor(w);
      if (p && !out.includes(p)) out.push(p);
    }
    return out.length ? out : cur ? [cur] : [];
  }

  // render redraws the tracks; it resolves when their data is drawn, and
  // quietly when a newer render replaced it.
  async render() {
    const gen = ++this.renders;
    this.controller?.abort();
    prefetchCancel(); // a view change goes first; the next idle time resumes it
    const ctl = new AbortController();
    this.controller = ctl;
    const host = document.getElementById("nsightTracks");
    const s = this.view.state;
    host.hidden = false;
    if (!s.nsys) {
      replace(host, [h("div", { class: "row nsight-closed" }, h("div", { class: "row-label" }, h("b", null, "Nsight")), h("div", { class: "lane note" }, `${this.profiles.length} reports · `, h("button", { type: "button", id: "nsightShow", onclick: () => this.view.showNsight(true) }, "Show Nsight tracks")))]);
      return;
    }
    const chosen = this.chosen();
    // The same reports for the same request keep their elements: a zoom
    // redraws the canvases and moves the request's bars, nothing more.
    const key = JSON.stringify([chosen.map((p) => p.id), s.request]);
    if (key !== this.key || !host.contains(this.blocks?.[0]?.el ?? null)) {
      this.key = key;
      for (const b of this.blocks ?? []) forgetLane(b.lane); // replaced: no longer observed
      this.blocks = chosen.map((p) => this.block(p));
      replace(host, [h("div", { class: "nsight-title" }, h("b", null, "Nsight tracks"), h("span", { class: "muted" }, " · host NVTX ranges · shared process/rank activity; overlap does not prove request ownership")), ...this.blocks.map((b) => b.el)]);
    } else {
      for (const b of this.blocks) b.moveRequest();
    }
    const blocks = this.blocks;
    for (const id of this.views.keys()) if (!chosen.some((p) => p.id === id)) this.views.delete(id); // memory: the shown reports only
    for (const id of this.buffers.keys()) if (!chosen.some((p) => p.id === id)) this.buffers.delete(id);
    const t0 = performance.now();
    // view_ms is each answer's wall time with its shard loads (fetch,
    // decompress, give): view_ms − answer_ms is what the loads cost.
    // load: where the shard loads' time went, summed over shards and
    // parts (loader.js newLoadTiming).
    const timing = { answer_ms: 0, view_ms: 0, draw_ms: 0, modes: [], load: newLoadTiming() };
    try {
      const cur = this.current();
      const work = chosen.map(async (p, k) => {
        // Two answer buffers a profile, taking turns: the drawn view's rows
        // (which its hit test reads) are never written over.
        const bufs = this.buffers.get(p.id) ?? [];
        const drawnBuf = this.views.get(p.id)?.buffer;
        const into = bufs.find((b) => b.buffer !== drawnBuf?.buffer);
        const asked = performance.now();
        const v = await nsysView({ profile: p.id, from: s.from, to: s.to }, ctl.signal, () => blocks[k].loading(), into, timing.load);
        timing.view_ms = Math.max(timing.view_ms, performance.now() - asked);
        if (v.buffer.buffer !== into?.buffer) this.buffers.set(p.id, [...bufs.filter((b) => b.buffer === drawnBuf?.buffer), v.buffer]);
        if (ctl.signal.aborted) return;
        this.views.set(p.id, v);
        const t = performance.now();
        blocks[k].draw(v);
        timing.draw_ms += performance.now() - t;
        timing.answer_ms = Math.max(timing.answer_ms, v.answerMs);
        timing.modes.push(v.header.mode);
      });
      if (cur && cur.cpu_samples > 0 && s.tab === "nsys") {
        work.push(
          askDetail("cpu", { profile: cur.id, from: s.from, to: s.to, limit: 12 }, { signal: ctl.signal }).then((c) => {
            if (!ctl.signal.aborted) this.cpu = { profile: cur.id, range: [s.from, s.to], answer: c };
          }),
        );
      }
      await Promise.all(work);
      // Benchmarks read the engine's answer and drawing time here.
      performance.clearMeasures("dsight:nsight-render");
      performance.measure("dsight:nsight-render", { start: t0, detail: timing });
      // Idle time after this view fetches the chunks nearest it.
      prefetchAround(chosen.map((p) => p.id), s.from, s.to);
      rehearseNsight(this, gen);
    } catch (err) {
      if (err.name === "AbortError" || ctl.signal.aborted) return;
      host.appendChild(h("p", { class: "error-inline" }, `Could not load Nsight ranges: ${err.message}`));
      throw err;
    }
  }

  // block builds one profile's heading, request row and lanes; draw fills
  // the lanes once the view's data is there.
  block(p) {
    const view = this.view;
    const s = view.state;
    const title = ["Nsight", [p.worker, p.rank !== null ? `rank ${p.rank}` : null, p.engine !== null ? `engine ${p.engine}` : null, p.gpus !== null ? `gpu ${p.gpus}` : null].filter(Boolean).join(" / ")].join(" · ");
    const note = h("div", { class: "lane note nsight-note" }, "Loading selected ranges…");
    const head = h("div", { class: "row nsight-head" }, h("div", { class: "row-label" }, h("span", { class: "name", title: `${title} · ${p.file}` }, title)), note);
    const rows = [head];
    const r = view.selected();
    let reqRow = r ? requestRow(s, r, p) : null;
    if (reqRow) rows.push(reqRow);
    const labels = h("div", { class: "row-label nsight-threads" });
    const canvas = h("canvas", { class: "nsight-canvas", dataset: { profile: String(p.id), mode: "loading" } });
    const lane = h("div", { class: "lane" }, canvas);
    const lanes = h("div", { class: "row nsight-lanes" }, labels, lane);
    rows.push(lanes);
    const el = h("div", { class: "nsight-profile", dataset: { profile: String(p.id) } }, rows);
    let last = null;
    redraws.set(lane, () => last && draw(last));
    const draw = (v) => {
      last = v;
      const { header, rows: data } = v;
      const at = { from: header.range[0], to: header.range[1] }; // the window drawn
      canvas.dataset.mode = header.mode;
      canvas.dataset.estimate = String(header.estimate);
      // The lane labels are morphed: a zoom that keeps the threads keeps
      // their elements, and only the changed titles are laid out again.
      if (header.mode === "density") {
        const d = header.density;
        setText(note, `${header.estimate.toLocaleString("en-US")} ranges in the window's shards (over ${header.threshold.toLocaleString("en-US")}): ${d.bins}-bin density, bin width ${fmtDuration(d.bin_seconds)} · ${d.note}. Zoom in for exact ranges.`);
        morph(labels, [h("span", { class: "name" }, `Density · ${fmtDuration(d.bin_seconds)} bins`)]);
        drawDensity(canvas, at, d);
        canvas.onclick = null;
        canvas.onmousemove = null;
        return;
      }
      canvas.dataset.drawn = String(header.drawn);
      if (header.total === 0) {
        setText(note, "No selected NVTX ranges overlap this window");
        morph(labels, [h("span", { class: "name muted" }, "no ranges")]);
        sizeCanvas(canvas, LANE_H + 2 * LANE_GAP);
        canvas.onclick = null;
        return;
      }
      const hidden = header.total - header.drawn;
      setText(note, `${header.total.toLocaleString("en-US")} exact ranges in the window${hidden ? ` · ${hidden.toLocaleString("en-US")} on threads or lanes not drawn (8 threads × 5 lanes)` : ""} · click a range to fit it`);
      const top = [];
      const threadLabels = [];
      let y = 0;
      for (const th of header.threads) {
        const lanesN = Math.max(th.lanes, 1);
        const hgt = lanesN * (LANE_H + LANE_GAP) + LANE_GAP;
        top.push(y);
        const label = `${th.name ?? "thread"} · pid ${th.pid} tid ${th.tid}`;
        threadLabels.push(h("span", { class: "thread-label", style: { height: `${hgt}px` }, title: `${label} · globalTid ${th.global_tid} · ${th.ranges} ranges` }, label));
        y += hgt;
      }
      morph(labels, threadLabels);
      const geo = drawExact(canvas, at, header, data, top, y);
      canvas.onclick = (ev) => {
        const hit = geo.hit(ev);
        if (hit) view.commitRange(...fitRange(hit.start, Math.max(hit.end, hit.start + 1e-9), view.duration));
      };
      canvas.onmousemove = (ev) => {
        const hit = geo.hit(ev);
        canvas.title = hit ? `${hit.name} · ${fmtDuration(hit.end - hit.start)} · ${hit.start.toFixed(6)}–${hit.end.toFixed(6)} s` : "";
        canvas.style.cursor = hit ? "pointer" : "default";
      };
    };
    const loading = () => {
      canvas.dataset.mode = "loading";
      setText(note, "Loading selected ranges…");
    };
    const moveRequest = () => {
      if (!reqRow) return;
      const next = requestRow(s, view.selected(), p);
      reqRow.replaceWith(next);
      reqRow = next;
    };
    return { el, lane, draw, loading, moveRequest, profile: p.id };
  }
}

function replace(host, nodes) {
  host.replaceChildren(...nodes);
}

// requestRow is the selected request's bar with the spans that show where
// it ran in this profile: preprocessing for the frontend, its
// worker.operation spans for a worker.
function requestRow(s, r, p) {
  const pct = (t) => `${Math.min(Math.max(laneX(s, t), 0), 1) * 100}%`;
  const width = (a, b) => `${Math.max((Math.min(Math.max(laneX(s, b), 0), 1) - Math.min(Math.max(laneX(s, a), 0), 1)) * 100, 0.15)}%`;
  const bars = [h("div", { class: "nsight-req", style: { left: pct(r.start), width: width(r.start, r.end) }, title: `Request ${r.id}: ${r.start.toFixed(6)}–${r.end.toFixed(6)} s` })];
  for (const sp of r.spans) {
    const mine = p.worker === "frontend" ? sp.role === "frontend" && sp.name === "request.preprocessing" : sp.worker === p.worker && sp.name.startsWith("worker.operation");
    const any = sp.name === "request.preprocessing" || sp.name.startsWith("worker.operation");
    if (!any) continue;
    bars.push(h("div", { class: `nsight-span${mine ? " mine" : ""}`, style: { left: pct(sp.start), width: width(sp.start, sp.end) }, title: `${sp.name}${sp.worker ? ` on ${sp.worker}` : ""}: ${fmtDuration(sp.end - sp.start)}` }));
  }
  return h("div", { class: "row nsight-request" }, h("div", { class: "row-label" }, h("span", { class: "name", title: r.id }, `Request ${r.id}`)), h("div", { class: "lane" }, bars));
}

// laneWidth is the width of a canvas's lane. Reading clientWidth after the
// render's DOM writes forces a layout inside the zoom's script, and the
// frame lays out again after it: a ResizeObserver keeps each lane's width
// as of the last layout instead, so only a lane's first drawing reads it.
// A lane whose width changes is drawn again at once from the view it
// last drew (redraws), not at the next render: a resized window keeps
// its ranges where the time axis puts them.
const laneWidths = new WeakMap();
const redraws = new WeakMap(); // lane → draws its last view again
const laneObserver =
  typeof ResizeObserver === "function"
    ? new ResizeObserver((entries) => {
        for (const e of entries) {
          const was = laneWidths.get(e.target);
          const now = e.target.clientWidth;
          laneWidths.set(e.target, now);
          if (was !== undefined && was !== now) redraws.get(e.target)?.();
        }
      })
    : null;
function laneWidth(lane) {
  let w = laneWidths.get(lane);
  if (w === undefined) {
    w = lane.clientWidth;
    if (laneObserver) {
      laneWidths.set(lane, w);
      laneObserver.observe(lane);
    }
  }
  return w;
}

function forgetLane(lane) {
  laneWidths.delete(lane);
  redraws.delete(lane);
  laneObserver?.unobserve(lane);
}

function sizeCanvas(canvas, height) {
  const lane = canvas.parentNode;
  return sizeLaneCanvas(canvas, lane, laneWidth(lane), height);
}

function drawDensity(canvas, s, d) {
  const { ctx, w } = sizeCanvas(canvas, DENSITY_H);
  const peak = Math.max(1, ...d.counts);
  ctx.fillStyle = "#6f8fc9";
  d.counts.forEach((c, k) => {
    if (!c) return;
    const a = (d.first + k) * d.bin_seconds;
    const x0 = Math.max(laneX(s, a), 0) * w;
    const x1 = Math.min(laneX(s, a + d.bin_seconds), 1) * w;
    // The caption owns the top CAPTION_H pixels: the peak bar stops below it.
    const hgt = Math.max((c / peak) * (DENSITY_H - CAPTION_H), 1);
    ctx.fillRect(x0, DENSITY_H - hgt, Math.max(x1 - x0 - 0.5, 0.5), hgt);
  });
  ctx.fillStyle = "#5b6577";
  ctx.font = "10px system-ui, sans-serif";
  ctx.fillText(`peak ${peak.toLocaleString("en-US")} overlapping`, 4, 11);
}

// drawExact draws every row on its thread's lane (nsightdraw.js
// exactRects: a rectangle per range a pixel wide or more, one per pixel
// column of narrower ones) and returns a hit test. Rectangles are filled
// with one path per colour.
function drawExact(canvas, s, header, data, top, height) {
  const { ctx, w } = sizeCanvas(canvas, height);
  const n = data.length / NSYS_ROW_FLOATS;
  const laneY = (th, lane) => top[th] + LANE_GAP + lane * (LANE_H + LANE_GAP);
  const labels = [];
  const palette = header.names.map(nameColor);
  const paths = new Map(); // colour → Path2D
  const fill = (name, x, y, width) => {
    const color = palette[name];
    let p = paths.get(color);
    if (!p) paths.set(color, (p = new Path2D()));
    p.rect(x, y, width, LANE_H);
  };
  const { rects, merged } = exactRects(s, w, data, laneY, header.threads.length, fill, (name, x0, x1, y) => labels.push([header.names[name], x0, x1, y]));
  for (const [color, p] of paths) {
    ctx.fillStyle = color;
    ctx.fill(p);
  }
  canvas.dataset.rects = String(rects);
  canvas.dataset.merged = String(merged);
  // Names inside the ranges wide enough to hold some of them.
  ctx.font = "10.5px system-ui, sans-serif";
  ctx.fillStyle = "#fff";
  ctx.textBaseline = "middle";
  for (const [text, x0, x1, y] of labels) {
    ctx.save();
    ctx.beginPath();
    ctx.rect(x0 + 3, y, x1 - x0 - 6, LANE_H);
    ctx.clip();
    ctx.fillText(text, x0 + 4, y + LANE_H / 2 + 0.5);
    ctx.restore();
  }
  ctx.strokeStyle = "#e3e7ee";
  for (const y of top.slice(1)) {
    ctx.beginPath();
    ctx.moveTo(0, y + 0.5);
    ctx.lineTo(w, y + 0.5);
    ctx.stroke();
  }
  return {
    hit(ev) {
      const rect = canvas.getBoundingClientRect();
      const px = ev.clientX - rect.left;
      const py = ev.clientY - rect.top;
      const t = s.from + (px / w) * (s.to - s.from);
      const slack = (3 / w) * (s.to - s.from); // a few pixels either side
      let best = null;
      for (let i = 0; i < n; i++) {
        const o = i * NSYS_ROW_FLOATS;
        const y = laneY(data[o + 3], data[o + 4]);
        if (py < y || py > y + LANE_H || data[o] > t + slack || data[o + 1] < t - slack) continue;
        if (!best || data[o + 1] - data[o] < best.end - best.start) best = { start: data[o], end: data[o + 1], name: header.names[data[o + 2]] };
      }
      return best;
    },
  };
}
