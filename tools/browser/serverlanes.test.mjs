// Server-activity lanes of an OTel-only run (12,000 spans no request owns):
// over a window of a few thousand spans every one is drawn and overlapping
// spans never share a sub-lane (measured on the drawn rects); over the
// whole run, more than can be drawn, each lane shows its density and the
// note and lane counts add up to the engine's total — from file:// and from
// a loopback HTTP server.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BIN, OUT, ROOT } from "./fixture.mjs";
import { launch, open, serve, fileURL } from "./harness.mjs";

let work;
let report;
let browser;
let server;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-serverlanes-"));
  const run = path.join(work, "run");
  report = path.join(work, "report");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "5", "-sources", "otel", "-requests", "600"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(BIN, ["build", run, "-o", report], { stdio: ["ignore", "ignore", "inherit"] });
  browser = await launch();
  server = await serve(report);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// drawn reads the lanes as drawn: per lane its key, count, sub-lanes and
// bars (span id, sub-lane, rect in page px), and the head's note.
function drawn(page) {
  return page.evaluate(() => {
    const head = document.querySelector("#serverActivity .breakdown-head .lane");
    return {
      mode: head.dataset.serverDrawn,
      total: Number(head.dataset.serverTotal),
      note: head.textContent,
      lanes: [...document.querySelectorAll("#serverActivity .server-activity-row")].map((r) => ({
        key: r.dataset.activityLane,
        total: Number(r.dataset.laneTotal),
        bars: [...r.querySelectorAll("[data-span]")].map((b) => {
          const x = b.getBoundingClientRect();
          return { id: b.dataset.span, sub: Number(b.dataset.subLane), left: x.left, right: x.right, top: x.top, bottom: x.bottom };
        }),
        density: [...r.querySelectorAll(".server-density")].map((b) => Number(b.dataset.count)),
      })),
    };
  });
}

for (const mode of ["file", "http"]) {
  test(`${mode}: every span in a window is drawn, overlapping spans in separate sub-lanes; a crowded range says how many`, async () => {
    const { page, problems } = await open(browser.context, mode === "file" ? fileURL(report) : server.url);
    try {
      const whole = await page.evaluate(() => traceExplorer.queryServerSpans({ limit: 0 }).total);
      assert.ok(whole > 4000, `${whole} spans in the run`);
      // The whole run: more than can be drawn, as densities, counted.
      let seen = await drawn(page);
      assert.equal(seen.mode, "density");
      assert.equal(seen.total, whole);
      assert.match(seen.note, new RegExp(`^${whole.toLocaleString("en-US")} server span\\(s\\) in range, more than`));
      assert.equal(seen.lanes.reduce((n, l) => n + l.total, 0), whole, "lane counts add up to every span");
      assert.ok(seen.lanes.every((l) => l.bars.length === 0 && l.density.length > 0 && Math.max(...l.density) > 0), "every lane draws its density");
      // A window of a few thousand spans: every one drawn as a bar.
      await page.evaluate(() => traceExplorer.selectRange(100, 200));
      seen = await drawn(page);
      const inWindow = await page.evaluate(() => traceExplorer.queryServerSpans({ from: 100, to: 200, limit: 0 }).total);
      assert.ok(inWindow > 1000, `${inWindow} spans in the window: more than the 1,000 once drawn`);
      assert.equal(seen.mode, "spans");
      assert.equal(seen.total, inWindow);
      const bars = seen.lanes.flatMap((l) => l.bars.map((b) => ({ ...b, lane: l.key })));
      assert.equal(bars.length, inWindow, "every span in the window is drawn");
      assert.equal(new Set(bars.map((b) => b.id + b.lane + b.left)).size, inWindow);
      const overlaps = [];
      let stacked = 0;
      for (const l of seen.lanes) {
        const subs = new Map();
        for (const b of l.bars) (subs.get(b.sub) || subs.set(b.sub, []).get(b.sub)).push(b);
        if (subs.size > 1) stacked++;
        for (const [sub, list] of subs) {
          list.sort((a, b) => a.left - b.left);
          const top = list[0].top;
          for (let k = 1; k < list.length; k++) {
            if (list[k].left < list[k - 1].right - 0.01) overlaps.push(`${l.key} sub-lane ${sub}: ${list[k - 1].id} [${list[k - 1].left}, ${list[k - 1].right}] and ${list[k].id} [${list[k].left}, ${list[k].right}]`);
            if (Math.abs(list[k].top - top) > 0.5) overlaps.push(`${l.key} sub-lane ${sub}: bars at different heights`);
          }
        }
        // Sub-lanes are stacked: no two share a height.
        const tops = [...subs.values()].map((list) => Math.round(list[0].top));
        assert.equal(new Set(tops).size, tops.length, `${l.key}: sub-lanes at distinct heights`);
      }
      assert.deepEqual(overlaps.slice(0, 5), []);
      assert.ok(stacked > 0, "overlapping spans were stacked into sub-lanes");
      if (mode === "file") {
        fs.mkdirSync(OUT, { recursive: true });
        await page.locator("#serverActivity").screenshot({ path: path.join(OUT, "server-lanes.png") });
      }
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
