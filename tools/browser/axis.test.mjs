// One time axis, in the real page from file:// and from a loopback HTTP
// server: at three ranges a time is at the same x (±1 px) on a request
// lane, a request bar's edge, a metric chart's plot and an Nsight lane, and
// on the overview at the full run (the overview always spans the whole
// run: page-compat.md's brush geometry); the hover cursor is one line
// crossing every track; the overview brush maps fractions of #overview's
// box to run times and marks the selected window, with connector lines to
// the lanes, over the window's own overview track (aligned at every range,
// counting what the run overview counts); a window shorter than the sampling interval draws the
// samples on either side, marked as outside the window.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { buildReport, OUT } from "./fixture.mjs";

let fx;
let metricsOnly;
let browser;
let server;

before(async () => {
  fx = buildReport({ seed: 5, requests: 120, hostile: false, sources: "aiperf,frontend,otel,workers,tachometer,nsight", flags: ["--iteration-timezone", "UTC"] });
  metricsOnly = buildReport({ seed: 2, hostile: false, sources: "tachometer" });
  browser = await launch();
  server = await serve(fx.report);
  fs.mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
  if (metricsOnly) fs.rmSync(metricsOnly.work, { recursive: true, force: true });
});

// xs measures, in the page, where time t is drawn on each kind of track.
function xs(t) {
  const st = traceExplorer.getState();
  const at = (el, from, to) => {
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return r.width ? r.left + ((t - from) / (to - from)) * r.width : null;
  };
  const dur = traceExplorer.describe().meta.duration ?? null;
  // A request bar drawn whole in the range: its left edge is its start.
  let bar = null;
  for (const el of document.querySelectorAll("#clientTracks .request-row .req")) {
    const r = traceExplorer.getRequest(el.dataset.request);
    if (r.start > st.from && r.end < st.to) {
      bar = { start: r.start, left: el.getBoundingClientRect().left };
      break;
    }
  }
  // The window's overview track: its lane, and the left edge of the bin
  // holding t against the bin start's x on that lane. The bars are one
  // path, a subpath "M x y h w v h h -w z" per non-empty bin in bin order;
  // the svg's screen matrix places a subpath's x on the page.
  const wlane = document.querySelector("#windowOverview .window-overview-lane");
  let wbin = null;
  if (wlane) {
    const bs = Number(wlane.dataset.binSeconds);
    const k = Math.floor((t - st.from) / bs);
    const svg = wlane.querySelector("svg");
    const binW = svg.viewBox.baseVal.width / svg.dataset.counts.split(",").length;
    const xs = [...svg.querySelector("path.ov-bar").getAttribute("d").matchAll(/M([-\d.e]+) /g)].map((m) => Number(m[1]));
    const xk = xs.find((x) => Math.round(x / binW) === k);
    if (xk !== undefined) {
      const m = svg.getScreenCTM();
      wbin = { left: m.a * xk + m.e, x: at(wlane, st.from, st.to) - ((t - (st.from + k * bs)) / (st.to - st.from)) * wlane.getBoundingClientRect().width };
    }
  }
  return {
    windowOverview: at(wlane, st.from, st.to),
    windowOverviewSvg: at(wlane?.querySelector("svg"), st.from, st.to),
    wbin,
    lane: at(document.querySelector("#clientTracks .request-row .lane"), st.from, st.to),
    metric: at(document.querySelector(".ds-metric-chart .u-over"), st.from, st.to),
    nsight: at(document.querySelector(".nsight-canvas"), st.from, st.to),
    overview: dur === null ? null : at(document.getElementById("overview"), 0, dur),
    bar,
    barLaneX: bar ? at(document.querySelector("#clientTracks .request-row .lane"), st.from, st.to) - ((t - bar.start) / (st.to - st.from)) * document.querySelector("#clientTracks .request-row .lane").getBoundingClientRect().width : null,
  };
}

for (const mode of ["file", "http"]) {
  const url = () => (mode === "file" ? fileURL(fx.report) : server.url);

  test(`${mode}: a time is at the same x on every track at three ranges`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const dur = await page.evaluate(() => traceExplorer.describe().meta.duration);
      assert.ok(dur > 0, "describe() gives the run's duration");
      await page.evaluate(async () => {
        await traceExplorer.whenMetricsReady();
        await traceExplorer.inspectNsys({ worker: "frontend" });
        await traceExplorer.whenDetailsReady();
      });
      const sel = await page.evaluate(() => traceExplorer.getState().request);
      const req = await page.evaluate((id) => traceExplorer.getRequest(id), sel);
      const ranges = [
        [0, dur],
        [dur * 0.2, dur * 0.65],
        [Math.max(req.start - 0.5, 0), Math.min(req.end + 0.5, dur)],
      ];
      let binsChecked = 0;
      for (const [k, [from, to]] of ranges.entries()) {
        await page.evaluate(async ([a, b]) => {
          traceExplorer.selectRange(a, b);
          await traceExplorer.whenMetricsReady();
          await traceExplorer.whenDetailsReady();
        }, [from, to]);
        for (const f of [0.1, 0.37, 0.9]) {
          const t = from + f * (to - from);
          const x = await page.evaluate(xs, t);
          const where = `range ${k} [${from}, ${to}] at t=${t}`;
          assert.ok(x.lane !== null, `a request lane is drawn (${where})`);
          assert.ok(x.metric !== null, `a metric chart is drawn (${where})`);
          assert.ok(x.nsight !== null, `an Nsight lane is drawn (${where})`);
          assert.ok(Math.abs(x.metric - x.lane) <= 1, `metric chart x ${x.metric} vs lane x ${x.lane} (${where})`);
          assert.ok(Math.abs(x.nsight - x.lane) <= 1, `Nsight lane x ${x.nsight} vs lane x ${x.lane} (${where})`);
          if (k === 0) assert.ok(Math.abs(x.overview - x.lane) <= 1, `overview x ${x.overview} vs lane x ${x.lane} (${where})`);
          // The window's overview track is on the same axis at every range.
          assert.ok(x.windowOverview !== null && x.windowOverviewSvg !== null, `the window overview track is drawn (${where})`);
          assert.ok(Math.abs(x.windowOverview - x.lane) <= 1, `window overview x ${x.windowOverview} vs lane x ${x.lane} (${where})`);
          assert.ok(Math.abs(x.windowOverviewSvg - x.lane) <= 1, `window overview histogram x ${x.windowOverviewSvg} vs lane x ${x.lane} (${where})`);
          if (x.wbin) {
            assert.ok(Math.abs(x.wbin.left - x.wbin.x) <= 1, `window overview bin edge ${x.wbin.left} vs its start's x ${x.wbin.x} (${where})`);
            binsChecked++;
          }
          if (x.bar) assert.ok(Math.abs(x.bar.left - x.barLaneX) <= 1, `request bar edge ${x.bar.left} vs its start's x ${x.barLaneX} (${where})`);
        }
      }
      assert.ok(binsChecked > 0, "some point's window overview bin is drawn and checked");
      // The hover cursor is one line over every track below the overview.
      const probe = await page.evaluate(() => {
        const over = document.querySelector(".ds-metric-chart .u-over").getBoundingClientRect();
        return { x: over.left + over.width * 0.5, y: over.top + over.height * 0.5 };
      });
      await page.mouse.move(probe.x, probe.y);
      const line = await page.evaluate(() => {
        const l = document.getElementById("cursorLine");
        const r = l.getBoundingClientRect();
        const lane = document.querySelector("#clientTracks .request-row .lane").getBoundingClientRect();
        const nsight = document.querySelector(".nsight-canvas").getBoundingClientRect();
        const plot = document.querySelector(".ds-metric-chart .u-over").getBoundingClientRect();
        return { hidden: l.hidden, left: r.left, top: r.top, bottom: r.bottom, lane: lane.top, nsight: nsight.bottom, plot: plot.bottom };
      });
      assert.equal(line.hidden, false, "the cursor shows over a metric chart");
      assert.ok(Math.abs(line.left - probe.x) <= 1, `cursor at ${line.left}, pointer at ${probe.x}`);
      assert.ok(line.top <= line.lane && line.bottom >= line.nsight && line.bottom >= line.plot, "the cursor crosses the lanes, the Nsight tracks and the metric charts");
      await page.screenshot({ path: path.join(OUT, `axis-${mode}.png`), fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: the overview brush maps fractions of #overview's box to run times`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const dur = await page.evaluate(() => traceExplorer.describe().meta.duration);
      const box = await page.locator("#overview").boundingBox();
      const y = box.y + box.height / 2;
      const [x1, x2] = [box.x + box.width * 0.25, box.x + box.width * 0.6];
      await page.mouse.move(x1, y);
      await page.mouse.down();
      await page.mouse.move((x1 + x2) / 2, y);
      await page.mouse.move(x2, y);
      await page.mouse.up();
      const st = await page.evaluate(() => traceExplorer.getState());
      const px = dur / box.width; // one pixel of the box, in seconds
      assert.ok(Math.abs(st.from - dur * 0.25) <= px, `from ${st.from} vs ${dur * 0.25}`);
      assert.ok(Math.abs(st.to - dur * 0.6) <= px, `to ${st.to} vs ${dur * 0.6}`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: the run overview marks the window, connected to the window's overview track below`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const dur = await page.evaluate(() => traceExplorer.describe().meta.duration);
      const [from, to] = [dur * 0.3, dur * 0.45];
      await page.evaluate(([a, b]) => traceExplorer.selectRange(a, b), [from, to]);
      const seen = await page.evaluate(() => {
        const box = (el) => el.getBoundingClientRect();
        const ov = box(document.getElementById("overview"));
        const sel = box(document.querySelector("#overview .ov-selection"));
        const lines = [...document.querySelectorAll("#overviewConnector line")].map((l) => {
          const svg = l.ownerSVGElement;
          const r = box(svg);
          const vb = svg.viewBox.baseVal;
          const x = (v) => r.left + (Number(l.getAttribute(v)) / vb.width) * r.width;
          return { edge: l.dataset.edge, top: x("x1"), bottom: x("x2") };
        });
        const lane = box(document.querySelector("#windowOverview .window-overview-lane"));
        const laneRow = box(document.querySelector("#clientTracks .lane"));
        const counts = document.querySelector("#windowOverview svg").dataset.counts.split(",").reduce((n, c) => n + Number(c), 0);
        return { ov: { left: ov.left, width: ov.width }, sel: { left: sel.left, right: sel.right }, lines, lane: { left: lane.left, right: lane.right }, laneRow: { left: laneRow.left, right: laneRow.right }, counts, below: lane.top > ov.bottom };
      });
      const atFrac = (t) => seen.ov.left + (t / dur) * seen.ov.width;
      assert.ok(Math.abs(seen.sel.left - atFrac(from)) <= 1 && Math.abs(seen.sel.right - atFrac(to)) <= 1, `selection ${seen.sel.left}–${seen.sel.right} vs ${atFrac(from)}–${atFrac(to)}`);
      const byEdge = Object.fromEntries(seen.lines.map((l) => [l.edge, l]));
      assert.ok(Math.abs(byEdge.from.top - seen.sel.left) <= 1 && Math.abs(byEdge.to.top - seen.sel.right) <= 1, "connectors start at the window's edges on the overview");
      assert.ok(Math.abs(byEdge.from.bottom - seen.lane.left) <= 1 && Math.abs(byEdge.to.bottom - seen.lane.right) <= 1, "connectors end at the lanes' edges");
      assert.ok(Math.abs(seen.lane.left - seen.laneRow.left) <= 1 && Math.abs(seen.lane.right - seen.laneRow.right) <= 1, "the window overview track is a lane like the others");
      assert.ok(seen.below, "the window overview track is below the run overview");
      // It counts the request starts of the window, as the CLI lists them.
      const starts = await page.evaluate(([a, b]) => {
        let n = 0;
        for (let off = 0; ; off += 1000) {
          const p = traceExplorer.queryRequests({ from: a, to: b, limit: 1000, offset: off });
          n += p.items.filter((r) => r.start >= a && r.start <= b).length;
          if (off + 1000 >= p.total) return n;
        }
      }, [from, to]);
      assert.equal(seen.counts, starts);
      if (mode === "file") await page.screenshot({ path: path.join(OUT, "axis-window-overview.png"), fullPage: false });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: a window between two samples draws them, marked outside the window`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      const name = await page.evaluate(() => traceExplorer.getState().metric);
      assert.ok(name, "a metric card is open");
      // Two consecutive samples of the card's first series at least 0.3 s
      // apart, and a 280 ms window strictly between them.
      const win = await page.evaluate(async (name) => {
        const [s] = await traceExplorer.queryMetrics({ name, points: true });
        for (let k = 0; k + 1 < s.points.length; k++) {
          const [a, b] = [s.points[k][0], s.points[k + 1][0]];
          if (b - a > 0.3 && s.points[k][1] !== null && s.points[k + 1][1] !== null) return { id: s.id, from: a + 0.01, to: a + 0.29, before: s.points[k], after: s.points[k + 1] };
        }
        return null;
      }, name);
      assert.ok(win, "the series has two samples 0.3 s apart");
      await page.evaluate(async ({ from, to }) => {
        traceExplorer.selectRange(from, to);
        await traceExplorer.whenMetricsReady();
      }, win);
      const card = page.locator(`.metric-card[data-metric-name="${name}"]`);
      assert.equal(await card.getByText("No metric sample in this time range").count(), 0, "the chart is not blanked");
      assert.match(await card.locator(".ds-metric-outside").textContent(), /samples on either side, outside the window/);
      await card.locator(".u-over").scrollIntoViewIfNeeded();
      const over = await card.locator(".u-over").boundingBox();
      await page.mouse.move(over.x + over.width / 2, over.y + over.height / 2);
      const hover = await card.locator(".ds-metric-hover").textContent();
      assert.match(hover, /\(outside the window\)/, hover);
      // The hover names the recorded sample nearer the cursor, at its own time.
      const mid = (win.from + win.to) / 2;
      const near = mid - win.before[0] <= win.after[0] - mid ? win.before : win.after;
      assert.ok(hover.includes(`@ ${near[0].toFixed(3)} s (outside the window)`), `${hover} names the sample at ${near[0]}`);
      const title = await card.locator(`.ds-metric-legend-row[data-series-id="${win.id}"] .ds-metric-value`).getAttribute("title");
      assert.match(title, /^Recorded sample at /);
      await page.screenshot({ path: path.join(OUT, `axis-short-${mode}.png`), fullPage: false });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: lifecycle rows show each stage's and activity's full label and duration`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const seen = await page.evaluate(() => {
        const id = traceExplorer.getState().request;
        const lc = traceExplorer.getLifecycle(id);
        traceExplorer.selectRequest(id, { expand: true, fit: true });
        const ms = (x) => `${((x.end - x.start) * 1000).toFixed(3)} ms`;
        const rows = (sel, cls) => [...document.querySelectorAll(sel)].map((r) => {
          const l = r.querySelector(cls);
          return { text: l.textContent, clipped: l.scrollWidth > l.clientWidth + 1 || l.scrollHeight > r.clientHeight + 1 };
        });
        return {
          stages: lc.stages.map((st) => `${st.label} · ${ms(st)}`),
          activities: lc.activities.map((a) => `${a.label} · ${ms(a)}`),
          stageRows: rows(`.lifecycle-chain[data-owner-request="${id}"]`, ".stage-row-label"),
          activityRows: rows(`[data-activity-row][data-owner-request="${id}"]`, ".activity-row-label"),
        };
      });
      assert.ok(seen.activities.length > 0, "the request has activities");
      assert.deepEqual(seen.stageRows.map((r) => r.text), seen.stages);
      assert.deepEqual(seen.activityRows.map((r) => r.text.replace(/^(· )+/, "")), seen.activities);
      for (const r of [...seen.stageRows, ...seen.activityRows]) assert.equal(r.clipped, false, `${r.text} is shown whole`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: #clientTracks, the join badge and the Imported line say what the run holds`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      assert.equal(await page.locator("#clientTracks").count(), 1, "a run with client requests has #clientTracks");
      const want = await page.evaluate(() => {
        const a = traceExplorer.describe().audit;
        const n = traceExplorer.queryRequests({ limit: 1 }).total;
        const joined = a.clients_with_server_identity;
        const life = a.clients_with_lifecycle;
        return { n, life, badge: `${life} / ${n} client → server lifecycle${joined !== life ? ` (${joined} joined)` : ""}` };
      });
      assert.ok(want.life > 0 && want.life <= want.n, `${want.life} of ${want.n} requests have a lifecycle`);
      assert.equal(await page.locator("#joinBadge").isVisible(), true);
      assert.equal((await page.locator("#joinBadge").textContent()).trim(), want.badge);
      const coverage = await page.locator("#coverageNotice").textContent();
      assert.ok(coverage.startsWith(`Imported: ${want.n.toLocaleString("en-US")} clients · `), coverage);
      assert.match(coverage, new RegExp(`${want.life.toLocaleString("en-US")} requests with a lifecycle`));
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test("file: a metrics-only run has no #clientTracks, no join badge, and says what it imported", async () => {
  const { page, problems } = await open(browser.context, fileURL(metricsOnly.report));
  try {
    await page.evaluate(() => traceExplorer.whenMetricsReady());
    assert.equal(await page.locator("#clientTracks").count(), 0, "no client request, no #clientTracks");
    assert.equal(await page.locator(".track").count(), 0);
    assert.equal(await page.locator("#joinBadge").isVisible(), false);
    const series = await page.evaluate(() => traceExplorer.listMetricSeries().length);
    assert.ok(series > 0);
    assert.equal((await page.locator("#coverageNotice").textContent()).trim(), `Imported: ${series.toLocaleString("en-US")} metric series`);
    // The metric chart still keeps to the shared lanes' box.
    const x = await page.evaluate(() => {
      const tracks = document.getElementById("tracks");
      const r = tracks.getBoundingClientRect();
      const over = document.querySelector(".ds-metric-chart .u-over").getBoundingClientRect();
      const css = getComputedStyle(document.documentElement);
      return { lanes: r.left + tracks.clientLeft + parseFloat(css.getPropertyValue("--label-w")), plot: over.left };
    });
    assert.ok(Math.abs(x.lanes - x.plot) <= 1, `plot at ${x.plot}, lanes at ${x.lanes}`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
