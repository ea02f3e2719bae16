// A run holding only Nsight exports, in Debian's chromium from file:// and
// from a loopback HTTP server: the page opens on its Nsight tracks and says
// nothing about a timeline without tracks; a lane far denser than the
// canvas is wide draws every one of its ranges as a rectangle (neighbours
// narrower than a pixel share one per pixel column), painting no column no
// range covers; a sparse window draws a rectangle a range.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { open, fileURL } from "./harness.mjs";
import { cli, OUT } from "./fixture.mjs";
import { generatedReport } from "./suite.mjs";

const at = generatedReport("nsightonly", ["-seed", "5", "-requests", "20", "-sources", "nsight", "-nsight-ranges", "30000"]);

before(() => fs.mkdirSync(OUT, { recursive: true }));

// allRanges pages through the CLI's nsys answer for a window.
function allRanges(profile, from, to) {
  const out = [];
  for (let offset = 0; ; offset += 10000) {
    const a = cli(at.report, "nsys", { profile, from, to, offset, limit: 10000 });
    out.push(...a.items);
    if (out.length >= a.total) return { total: a.total, items: out };
  }
}

// lanePixels reads the middle row of a canvas's first lane: per device
// pixel column its alpha.
const lanePixels = (page, id) =>
  page.evaluate((id) => {
    const c = document.querySelector(`.nsight-canvas[data-profile="${id}"]`);
    const dpr = window.devicePixelRatio || 1;
    const row = c.getContext("2d").getImageData(0, Math.round(10 * dpr), c.width, 1).data;
    const alpha = [];
    for (let x = 0; x < c.width; x++) alpha.push(row[4 * x + 3]);
    return { alpha, dpr, cssWidth: c.clientWidth, dataset: { ...c.dataset } };
  }, id);

for (const mode of ["file", "http"]) {
  test(`${mode}: an Nsight-only run opens on its tracks, dense lanes draw every range, nothing invented`, async () => {
    const { page, problems } = await open(at.browser.context, mode === "file" ? fileURL(at.report) : at.server.url);
    try {
      const d = await page.evaluate(() => traceExplorer.describe());
      assert.equal(d.available.nsight, true);
      assert.equal(d.available.requests, false, "no client request");
      assert.equal(await page.locator("#nsightTracks").isVisible(), true, "the Nsight section is on the timeline");
      assert.equal(await page.locator("#emptyTimeline").isHidden(), true, "no 'No timeline tracks' beside the Nsight tracks");
      await page.locator("#nsightShow").click();
      await page.evaluate(() => traceExplorer.whenDetailsReady());
      assert.ok((await page.locator(".nsight-canvas").count()) >= 1, "a profile's lanes are drawn");
      assert.equal(await page.locator("#emptyTimeline").isHidden(), true);

      const p = cli(at.report, "profiles", { limit: 1000 }).items.filter((q) => q.worker !== "frontend").sort((a, b) => b.event_count - a.event_count)[0];
      const dur = d.meta.duration;
      await page.evaluate(({ id, dur }) => traceExplorer.inspectNsys({ profile: id, from: 0, to: dur }), { id: p.id, dur });
      const canvas = page.locator(`.nsight-canvas[data-profile="${p.id}"]`);
      assert.equal(await canvas.getAttribute("data-mode"), "density");
      if (mode === "file") await page.locator("#nsightTracks").screenshot({ path: path.join(OUT, "nsightonly-density.png") });

      // A tenth of the profile: ~3,000 ranges on one lane, under two
      // detail chunks, over a canvas about a third as many pixels wide.
      const [a0, a1] = p.imported_range;
      const from = a0 + (a1 - a0) * 0.45;
      const to = from + (a1 - a0) * 0.1;
      await page.evaluate(({ from, to }) => {
        traceExplorer.selectRange(from, to);
        return traceExplorer.whenDetailsReady();
      }, { from, to });
      assert.equal(await canvas.getAttribute("data-mode"), "exact");
      const want = allRanges(p.id, from, to);
      const px = await lanePixels(page, p.id);
      const drawn = Number(px.dataset.drawn);
      const rects = Number(px.dataset.rects);
      const merged = Number(px.dataset.merged);
      assert.equal(drawn, want.total, "every range of the window is drawn");
      assert.ok(drawn > 1800 && drawn > 2 * px.cssWidth, `a dense lane: ${drawn} ranges over ${px.cssWidth} px`);
      assert.ok(rects > 0 && rects < drawn && merged > 0 && drawn - merged < rects, `rects ${rects}, merged ${merged}, drawn ${drawn}`);
      assert.ok(rects <= px.cssWidth + 1, `at most a rectangle per pixel column: ${rects}`);
      const col = (t) => ((t - from) / (to - from)) * px.cssWidth * px.dpr;
      const covered = new Uint8Array(px.alpha.length);
      for (const r of want.items) {
        const c0 = Math.max(Math.floor(col(r.start)), 0);
        const c1 = Math.min(Math.max(Math.ceil(col(r.end)), c0 + px.dpr), px.alpha.length);
        for (let c = Math.max(c0 - 1, 0); c < Math.min(c1 + 1, px.alpha.length); c++) covered[c] = 1;
        if (c0 < px.alpha.length) assert.ok(px.alpha[Math.min(c0 + Math.floor(px.dpr / 2), px.alpha.length - 1)] > 0, `range at ${r.start} has its pixel`);
      }
      const invented = px.alpha.findIndex((a, c) => a > 0 && !covered[c]);
      assert.equal(invented, -1, `column ${invented} is painted where no range is`);
      if (mode === "file") await page.locator("#nsightTracks").screenshot({ path: path.join(OUT, "nsightonly-dense.png") });

      // A hundredth of that: every range wider than a pixel, its own rectangle.
      const to2 = from + (to - from) / 100;
      await page.evaluate(({ from, to }) => {
        traceExplorer.selectRange(from, to);
        return traceExplorer.whenDetailsReady();
      }, { from, to: to2 });
      const sparse = await lanePixels(page, p.id);
      assert.equal(Number(sparse.dataset.drawn), allRanges(p.id, from, to2).total);
      assert.equal(sparse.dataset.rects, sparse.dataset.drawn, "a rectangle a range");
      assert.equal(sparse.dataset.merged, "0");
      assert.equal(await page.locator("#emptyTimeline").isHidden(), true);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
