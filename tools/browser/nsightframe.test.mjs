// What a zoom of the Nsight tracks costs its frame, in Debian's chromium
// from file:// and from a loopback HTTP server: the zoom's script reads no
// layout geometry (a read after the render's DOM writes forces a layout
// the frame then repeats), the lanes keep the width of their last layout,
// also after a resize, and the Nsight tab and the lane labels keep their
// elements, their text changed in place to the new window's.

import { test } from "node:test";
import assert from "node:assert/strict";
import { open, fileURL } from "./harness.mjs";
import { generatedReport } from "./suite.mjs";

const at = generatedReport("nsightframe", ["-seed", "5", "-requests", "20", "-sources", "nsight", "-nsight-ranges", "30000"]);

// zoomInPage runs in the page: the overview, a first zoom, then a second
// zoom with every layout-geometry read counted.
const zoomInPage = async () => {
  const x = window.traceExplorer;
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const d = x.describe().meta.duration;
  const p = x.listProfiles().filter((q) => q.event_count > 0).sort((a, b) => b.event_count - a.event_count)[0];
  await x.inspectNsys({ profile: p.id, from: 0, to: d });
  await frame();
  const [a0, a1] = p.imported_range;
  const w = (a1 - a0) / 40;
  x.selectRange(a0 + (a1 - a0) * 0.2, a0 + (a1 - a0) * 0.2 + w);
  await x.whenDetailsReady();
  await frame();
  const tab = document.querySelector("#inspectorBody .nsight-tab");
  const label = document.querySelector(".nsight-threads .thread-label");
  const reads = [];
  const undo = [];
  const count = (proto, name) => {
    const desc = Object.getOwnPropertyDescriptor(proto, name);
    const spy = desc.get
      ? { get() { reads.push(name); return desc.get.call(this); } }
      : { value(...a) { reads.push(name); return desc.value.apply(this, a); } };
    Object.defineProperty(proto, name, { ...desc, ...spy });
    undo.push(() => Object.defineProperty(proto, name, desc));
  };
  for (const name of ["clientWidth", "clientHeight", "getBoundingClientRect", "getClientRects"]) count(Element.prototype, name);
  for (const name of ["offsetWidth", "offsetHeight", "offsetTop", "offsetLeft"]) count(HTMLElement.prototype, name);
  const [from, to] = [a0 + (a1 - a0) * 0.6, a0 + (a1 - a0) * 0.6 + w];
  try {
    x.selectRange(from, to);
    await x.whenDetailsReady();
  } finally {
    undo.forEach((f) => f());
  }
  await frame();
  const total = (await x.queryNsys({ profile: p.id, from, to, limit: 1 })).total;
  const canvas = document.querySelector(`.nsight-canvas[data-profile="${p.id}"]`);
  const dt = [...document.querySelectorAll("#inspectorBody .nsight-tab dt")].find((e) => e.textContent === "Ranges in window");
  return {
    reads,
    total,
    mode: canvas.dataset.mode,
    tabKept: document.querySelector("#inspectorBody .nsight-tab") === tab,
    labelKept: label !== null && label.isConnected,
    inWindow: dt?.nextElementSibling.textContent,
    note: document.querySelector(".nsight-note").textContent,
    canvasWidth: canvas.style.width,
    laneWidth: `${canvas.parentNode.clientWidth}px`,
  };
};

for (const via of ["file", "http"]) {
  test(`a zoom of the Nsight tracks reads no layout and keeps its elements (${via})`, async () => {
    const { page, problems } = await open(at.browser.context, via === "file" ? fileURL(at.report) : at.server.url);
    try {
      const got = await page.evaluate(zoomInPage);
      assert.deepEqual(got.reads, [], "the zoom's script read layout geometry");
      assert.equal(got.mode, "exact");
      assert.ok(got.total > 0);
      assert.equal(got.inWindow, `${got.total.toLocaleString("en-US")} exact`);
      assert.ok(got.note.startsWith(`${got.total.toLocaleString("en-US")} exact ranges in the window`), got.note);
      assert.ok(got.tabKept, "the Nsight tab was rebuilt");
      assert.ok(got.labelKept, "the lane labels were rebuilt");
      assert.equal(got.canvasWidth, got.laneWidth);

      // A narrower page: the lanes' width follows its layout.
      await page.setViewportSize({ width: 1000, height: 900 });
      const after = await page.evaluate(async () => {
        const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        await frame();
        await frame();
        // Drawn again at the new width before any view change.
        const c0 = document.querySelector(".nsight-canvas");
        const resized = { canvasWidth: c0.style.width, laneWidth: `${c0.parentNode.clientWidth}px`, pixels: c0.width };
        const x = window.traceExplorer;
        const s = x.getState();
        x.selectRange(s.from, s.from + (s.to - s.from) / 2);
        await x.whenDetailsReady();
        await frame();
        const canvas = document.querySelector(".nsight-canvas");
        return { resized, canvasWidth: canvas.style.width, laneWidth: `${canvas.parentNode.clientWidth}px` };
      });
      assert.equal(after.resized.canvasWidth, after.resized.laneWidth, "the canvas was not drawn again at its lane's new width");
      assert.equal(after.resized.pixels, Math.round(parseFloat(after.resized.laneWidth) * (await page.evaluate(() => devicePixelRatio))));
      assert.equal(after.canvasWidth, after.laneWidth);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

// canvasInPage runs in the page: the overview's density and a zoom to the
// exact ranges (the canvas grows to the lanes), then back to the overview
// and to the same window again with every write of a canvas's pixel size
// counted, and the lanes' visible heights.
const canvasInPage = async () => {
  const x = window.traceExplorer;
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const d = x.describe().meta.duration;
  const p = x.listProfiles().filter((q) => q.event_count > 0).sort((a, b) => b.event_count - a.event_count)[0];
  await x.inspectNsys({ profile: p.id, from: 0, to: d });
  await frame();
  const canvas = document.querySelector(`.nsight-canvas[data-profile="${p.id}"]`);
  const seen = () => ({ mode: canvas.dataset.mode, lane: canvas.parentNode.getBoundingClientRect().height, labels: [...canvas.closest(".nsight-lanes").querySelectorAll(".thread-label")].reduce((n, e) => n + e.getBoundingClientRect().height, 0), min: parseFloat(getComputedStyle(canvas.parentNode).minHeight) || 0 });
  const sets = [];
  const undo = [];
  for (const name of ["width", "height"]) {
    const desc = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, name);
    Object.defineProperty(HTMLCanvasElement.prototype, name, { ...desc, set(v) { if (this === canvas) sets.push(`${name}=${v}`); desc.set.call(this, v); } });
    undo.push(() => Object.defineProperty(HTMLCanvasElement.prototype, name, desc));
  }
  const states = [seen()];
  const [a0, a1] = p.imported_range;
  const w = (a1 - a0) / 40;
  const zoom = async () => {
    x.selectRange(a0 + (a1 - a0) * 0.3, a0 + (a1 - a0) * 0.3 + w);
    await x.whenDetailsReady();
    await frame();
  };
  await zoom();
  sets.length = 0;
  try {
    x.selectRange(0, d);
    await x.whenDetailsReady();
    await frame();
    states.push(seen());
    await zoom();
    states.push(seen());
  } finally {
    undo.forEach((f) => f());
  }
  return { sets, states };
};

for (const via of ["file", "http"]) {
  test(`a zoom between the density and the exact ranges keeps the canvas's pixels (${via})`, async () => {
    const { page, problems } = await open(at.browser.context, via === "file" ? fileURL(at.report) : at.server.url);
    try {
      const got = await page.evaluate(canvasInPage);
      assert.deepEqual(got.states.map((s) => s.mode), ["density", "density", "exact"]);
      assert.deepEqual(got.sets, [], "a zoom set the canvas's pixel size");
      const [density, back, exact] = got.states;
      assert.equal(density.lane, 44, "the density's lane is its drawing's height");
      assert.equal(back.lane, 44);
      assert.ok(exact.labels > 0 && Math.abs(exact.lane - Math.max(exact.labels, exact.min)) < 0.5, `the exact lane is as tall as its threads' labels: ${exact.lane} against ${exact.labels} (min-height ${exact.min})`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

// rehearsedInPage runs in the page: the overview, then idle time until the
// exact-zoom rehearsal is marked, with what is shown read before and after.
const rehearsedInPage = async () => {
  const x = window.traceExplorer;
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const d = x.describe().meta.duration;
  const p = x.listProfiles().filter((q) => q.event_count > 0).sort((a, b) => b.event_count - a.event_count)[0];
  await x.inspectNsys({ profile: p.id, from: 0, to: d });
  await frame();
  const shown = () => {
    const canvas = document.querySelector(`.nsight-canvas[data-profile="${p.id}"]`);
    return { mode: canvas.dataset.mode, estimate: canvas.dataset.estimate, pixels: [canvas.width, canvas.height], note: document.querySelector(".nsight-note").textContent, blocks: document.querySelectorAll(".nsight-profile").length, canvases: document.querySelectorAll("canvas.nsight-canvas").length };
  };
  const before = shown();
  const t0 = performance.now();
  while (!performance.getEntriesByName("dsight:nsight-rehearsed").length && performance.now() - t0 < 30000) await new Promise((r) => setTimeout(r, 50));
  const rehearsed = performance.getEntriesByName("dsight:nsight-rehearsed").length > 0;
  const after = shown();
  const [a0, a1] = p.imported_range;
  const [from, to] = [a0 + (a1 - a0) * 0.45, a0 + (a1 - a0) * 0.45 + (a1 - a0) / 40];
  x.selectRange(from, to);
  await x.whenDetailsReady();
  await frame();
  const canvas = document.querySelector(`.nsight-canvas[data-profile="${p.id}"]`);
  return { rehearsed, before, after, mode: canvas.dataset.mode, drawn: Number(canvas.dataset.drawn), total: (await x.queryNsys({ profile: p.id, from, to, limit: 1 })).total };
};

test("idle time rehearses an exact Nsight zoom off screen, changing nothing shown", async () => {
  const { page, problems } = await open(at.browser.context, fileURL(at.report));
  try {
    const got = await page.evaluate(rehearsedInPage);
    assert.ok(got.rehearsed, "no dsight:nsight-rehearsed mark within 30 s of idle time");
    assert.equal(got.before.mode, "density");
    assert.deepEqual(got.after, got.before, "the rehearsal changed what the tracks show");
    assert.equal(got.mode, "exact");
    assert.ok(got.total > 0 && got.drawn <= got.total, `drawn ${got.drawn} of ${got.total}`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
