// Entry point: boot the engine, load the core shard, wire the page, expose
// window.traceExplorer and announce readiness.

import { $, h, clear } from "./dom.js";
import { startEngine, loadShard, newLoadTiming } from "./loader.js";
import { EvidenceHold } from "./evidenceload.js";
import { attach, load, loadEvidence, settle, wantEvidence } from "./engine.js";
import { View } from "./app.js";
import { createAPI } from "./api.js";
import { rehearseZooms } from "./rehearse.js";
import { drawFirstChart } from "./firstchart.js";
import { wireShortLink } from "./shortlink.js";
import { wirePerfetto } from "./perfetto.js";
import { mountKeys } from "./keys.js";
import { installAxis, laneBox, timeAtFrac } from "./timeaxis.js";

function showError(err) {
  const box = $("error");
  box.hidden = false;
  clear(box).appendChild(h("span", null, String(err && err.message ? err.message : err)));
}

async function boot() {
  installAxis();
  const bootRecord = JSON.parse($("dsight-boot").textContent);
  performance.mark("dsight:boot");
  const entry = bootRecord.entry;
  // The engine's parts load first, alone: its compilation (off the main
  // thread) then runs while the core's parts load, instead of after them.
  let engineBytes;
  const compiling = new Promise((resolve) => (engineBytes = resolve));
  const coreTiming = newLoadTiming();
  const coreStart = compiling.then(() => performance.now());
  const core = compiling.then(() => loadShard(entry.core, coreTiming)).then(markCoreBytes);
  core.then(async () => performance.measure("dsight:core-load", { start: await coreStart, detail: coreTiming }), () => {});
  const loading = Promise.all([startEngine(entry.engine, engineBytes), core]);
  const early = drawFirstChart(bootRecord.first_chart);
  const [engine, coreBytes] = await loading;
  performance.mark("dsight:engine");
  attach(engine);
  const summary = load(coreBytes);
  performance.mark("dsight:core");
  const view = new View(summary);
  view.earlyChart = early;
  view.renderChrome();
  performance.mark("dsight:chrome");
  wire(view);
  const api = createAPI(view);
  view.api = api;
  let evidence = null;
  if (entry.evidence) {
    // A traced run's server evidence can be a hundred MB: draw the timeline
    // from the core first (a saved view waits, since it may expand
    // lifecycles), then load the evidence. The page can be explored
    // meanwhile; window.traceExplorer appears only once every evidence
    // script has run, so the synchronous API never sees a partial report:
    // the engine asks for the shards an answer needs (evidenceload.js).
    const saved = /^#view=/.test(location.hash);
    view.holdExtras = true;
    if (!saved) {
      const id = view.summary.counts.requests ? view.defaultRequest() : null;
      if (id !== null) view.selectRequest(id, { render: false });
      view.render();
      $("loading").textContent = "Loading server evidence…";
      performance.mark("dsight:first-paint");
    }
    // The collector stays off until the evidence is in the engine: the
    // evidence's shards are kept as the scripts' text, not given to the
    // engine, until an answer needs one or ready is past.
    evidence = new EvidenceHold(entry.evidence, loadEvidence);
    wantEvidence((chunks) => evidence.want(chunks));
    const timing = newLoadTiming();
    const t0 = performance.now();
    await evidence.load(timing);
    view.details.clear(); // details drawn pending can be answered now
    view.holdExtras = false;
    performance.mark("dsight:evidence");
    performance.measure("dsight:evidence-load", { start: t0, detail: timing });
  }
  restoreFromLocation(view, api);
  Object.defineProperty(window, "traceExplorer", { value: api, enumerable: true });
  $("loading").hidden = true;
  view.render();
  // The first click on a request after ready expanded and fitted it on
  // code the page had never run: ~2x a later click's time (issue 17).
  const t1 = performance.now();
  if (view.rehearseExpand()) performance.measure("dsight:expand-rehearsed", { start: t1 });
  performance.mark("dsight:ready");
  // The engine's collector comes back on after the first render, outside
  // its task; for a traced report once its evidence is in the engine
  // (giveEvidence): the ~94 MB of evidence on 100,000 traced requests,
  // given against the goal of a heap without it, would have the runtime
  // start a cycle, marking the whole heap, inside an API call made
  // meanwhile (wasm/collector.go).
  if (!evidence) setTimeout(settle, 0);
  window.dispatchEvent(new CustomEvent("trace-explorer:ready", { detail: { version: api.version } }));
  if (evidence) setTimeout(() => giveEvidence(evidence), 0);
  const renders = view.renders; // the user's first action ends the rehearsal, even before it starts
  view.metricsRendering.then(() => rehearseZooms(view, renders), () => {});
}

// giveEvidence gives the engine, after ready, the evidence shards no
// answer has asked for yet (evidenceload.js), then marks
// dsight:evidence-given and announces trace-explorer:evidence. A damaged
// shard is shown as an error; answers needing it fail with the same one.
async function giveEvidence(evidence) {
  const timing = newLoadTiming();
  const t0 = performance.now();
  try {
    await evidence.giveRest(timing);
  } catch (err) {
    showError(err);
    return;
  } finally {
    setTimeout(settle, 0); // a task of its own: it collects first
  }
  performance.mark("dsight:evidence-given");
  performance.measure("dsight:evidence-give", { start: t0, detail: timing });
  window.dispatchEvent(new CustomEvent("trace-explorer:evidence"));
}

// The start-up marks (docs/measurements.md, issue 17) split the wait for
// ready: dsight:core-bytes is the core shard loaded and checked.
function markCoreBytes(bytes) {
  performance.mark("dsight:core-bytes");
  return bytes;
}

function restoreFromLocation(view, api) {
  const m = /^#view=(.*)$/.exec(location.hash);
  if (m) {
    try {
      api.setState(JSON.parse(decodeURIComponent(m[1])));
      return;
    } catch (err) {
      showError(new Error(`Saved view could not be restored: ${err.message}`));
    }
  }
  // A request the user picked while the evidence loaded stays selected.
  if (view.state.request !== null) return;
  const id = view.summary.counts.requests ? view.defaultRequest() : null;
  if (id !== null) view.selectRequest(id, { render: false });
}

function wire(view) {
  const guard = (fn) => (...a) => {
    try {
      $("error").hidden = true;
      fn(...a);
    } catch (err) {
      showError(err);
    }
  };
  const applyInputs = guard(() => view.commitRange(Number($("rangeFrom").value), Number($("rangeTo").value)));
  $("applyRange").addEventListener("click", applyInputs);
  for (const id of ["rangeFrom", "rangeTo"]) $(id).addEventListener("keydown", (ev) => ev.key === "Enter" && applyInputs());
  $("fullRun").addEventListener("click", guard(() => view.commitRange(0, view.duration)));
  $("rangeBack").addEventListener("click", guard(() => view.back()));
  $("panLeft").addEventListener("click", guard(() => view.pan(-1)));
  $("panRight").addEventListener("click", guard(() => view.pan(1)));
  $("zoomIn").addEventListener("click", guard(() => view.zoom(0.5)));
  $("zoomOut").addEventListener("click", guard(() => view.zoom(2)));
  $("requestSearch").addEventListener("input", (ev) => {
    clearTimeout(view.searchTimer);
    view.searchPending = true; // renders leave the box alone until it is applied
    view.searchTimer = setTimeout(
      guard(() => {
        view.searchPending = false;
        view.setSearch(ev.target.value);
      }),
      180,
    );
  });
  $("sessionSort").addEventListener("change", guard((ev) => view.setSort(ev.target.value)));
  $("collapseAll").addEventListener("click", guard(() => view.collapseAll()));
  $("prevPage").addEventListener("click", guard(() => view.setPage(view.state.page - 1)));
  $("nextPage").addEventListener("click", guard(() => view.setPage(view.state.page + 1)));
  $("copyLink").addEventListener("click", guard(() => view.copyLink()));
  wireShortLink(view, guard);
  $("exportSelection").addEventListener("click", guard(() => view.downloadExport()));
  wirePerfetto(view, guard);
  wireLaneDrag(view, guard);
  wireCursor(view);
  mountKeys(view, guard);
}

// A vertical cursor follows the pointer over the lanes, with its time on the
// axis; it crosses every track of the column (lanes, Nsight tracks, metric
// charts — one time axis, timeaxis.js), so a metric spike and a request
// bar can be compared against one instant.
function wireCursor(view) {
  const host = $("trackColumn");
  const line = h("div", { class: "cursor-line", id: "cursorLine", hidden: true });
  host.appendChild(line);
  const hide = () => {
    line.hidden = true;
    const label = $("cursorLabel");
    if (label) label.hidden = true;
  };
  host.addEventListener("pointermove", (ev) => {
    // The overview above the tracks spans the whole run, not the range:
    // the line starts below it.
    const tracks = $("tracks");
    const r = laneBox();
    const inside = !!r && ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= tracks.getBoundingClientRect().top;
    const label = $("cursorLabel");
    line.hidden = !inside;
    if (label) label.hidden = !inside;
    if (!inside) return;
    const frac = (ev.clientX - r.left) / r.width;
    const t = timeAtFrac(view.state, frac);
    line.style.left = `${ev.clientX - host.getBoundingClientRect().left}px`;
    line.style.top = `${tracks.offsetTop}px`;
    if (!label) return;
    label.style.left = `${frac * 100}%`;
    label.textContent = `${t.toFixed(view.state.to - view.state.from < 1 ? 6 : 3)} s`;
  });
  host.addEventListener("pointerleave", hide);
}

// Dragging across the client lanes selects a range (≥ 5 px); Escape cancels.
// Releasing the pointer anywhere (over the inspector, outside the window)
// commits the range clamped to the lanes; a range change the gesture did
// not make (selectRange, setState) cancels it.
function wireLaneDrag(view, guard) {
  const host = $("clientTracks");
  if (!host) return; // a run without client requests has no client lanes
  let drag = null;
  const laneRect = () => host.querySelector(".lane")?.getBoundingClientRect();
  const timeAt = (x, r, from = view.state.from, to = view.state.to) => from + Math.min(Math.max((x - r.left) / r.width, 0), 1) * (to - from);
  const cancel = () => {
    if (drag && drag.preview) drag.preview.remove();
    drag = null;
  };
  host.addEventListener("pointerdown", (ev) => {
    const r = laneRect();
    if (!r || ev.clientX < r.left || ev.button !== 0) return;
    drag = { x0: ev.clientX, r, preview: null, from: view.state.from, to: view.state.to };
  });
  host.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    if (!drag.preview && Math.abs(ev.clientX - drag.x0) < 5) return;
    if (!drag.preview) {
      host.setPointerCapture(ev.pointerId);
      drag.preview = h("div", { class: "client-range-preview" });
      host.appendChild(drag.preview);
    }
    const a = Math.min(drag.x0, ev.clientX);
    const b = Math.max(drag.x0, ev.clientX);
    const hostRect = host.getBoundingClientRect();
    Object.assign(drag.preview.style, { left: `${a - hostRect.left}px`, width: `${b - a}px` });
    drag.preview.textContent = `${timeAt(a, drag.r).toFixed(3)} – ${timeAt(b, drag.r).toFixed(3)} s`;
  });
  const release = (ev) => {
    if (!drag) return;
    const d = drag;
    cancel();
    if (!d.preview) return;
    view.dragClick = true;
    setTimeout(() => (view.dragClick = false), 0);
    if (view.state.from !== d.from || view.state.to !== d.to) return; // the range changed meanwhile
    const a = timeAt(Math.min(d.x0, ev.clientX), d.r, d.from, d.to);
    const b = timeAt(Math.max(d.x0, ev.clientX), d.r, d.from, d.to);
    if (b > a) guard(() => view.commitRange(a, b))();
  };
  window.addEventListener("pointerup", release, true);
  host.addEventListener("pointercancel", cancel);
  window.addEventListener("keydown", (ev) => ev.key === "Escape" && cancel());
  window.addEventListener("blur", cancel);
}

// start boots the page; index.js calls it once the chart library is exposed.
export function start() {
  boot().catch((err) => {
    settle(); // a start-up that failed half way leaves no collector off
    window.traceExplorerError = err;
    $("loading").hidden = true;
    showError(err);
    console.error(err);
  });
}
