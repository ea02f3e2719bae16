// Capacity charts against an independent reading of the logs: a generated
// TokenSpeed run in a zone with daylight saving time is built into a report;
// the test pins both capacity families through the metric picker, zooms, and
// compares every legend line and the queryMetrics answer with numbers it
// computes itself from the raw worker-log lines (its own parser, following
// shared/spec/input-formats.md §7 and reference-behaviour.md §4.3, §9), in
// Debian's chromium from file:// and from a loopback HTTP server. A hostile
// label value from the capture renders as text.
//
// CAPACITY_SEED, CAPACITY_SOURCES and CAPACITY_REQUESTS vary the generated
// run (defaults: seed 3, every source but AgentPerf, 200 requests).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { BIN, ROOT, OUT } from "./fixture.mjs";
import { readTokenSpeedRun, expectCapacity, legendLines, heldLimits } from "./capacity.mjs";

const ZONE = "America/New_York"; // UTC−4 in September: a wrong or missing zone shifts every sample by hours
const SEED = Number(process.env.CAPACITY_SEED || 3);
const SOURCES = process.env.CAPACITY_SOURCES || "aiperf,frontend,otel,workers,sglang,tokenspeed,tachometer";
const HOSTILE = `synth/agentic-70b <img src=x onerror=alert(1)> "quotes" & </script>`;

const FAMILIES = [
  { name: "log_tokenspeed_active_decode_requests", limit: "log_tokenspeed_decode_request_limit", unit: "requests", label: "Logged batch limit", value: "running", ref: "setting" },
  { name: "log_tokenspeed_active_kv_pages", limit: "log_tokenspeed_kv_pool_pages", unit: "pages", label: "KV pool size", value: "active", ref: "pool" },
];

let work;
let run;
let report;
let truth; // the independent reading of the run
let browser;
let server;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-capacity-"));
  run = path.join(work, "run");
  report = path.join(work, "report");
  const size = process.env.CAPACITY_REQUESTS ? ["-requests", process.env.CAPACITY_REQUESTS] : [];
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", String(SEED), "-hostile", "-sources", SOURCES, "-timezone", ZONE, ...size], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(BIN, ["build", run, "-o", report, "--iteration-timezone", ZONE], { stdio: ["ignore", "ignore", "inherit"] });
  truth = readTokenSpeedRun(run, ZONE);
  browser = await launch();
  // Keep every uPlot the page makes, to find where a limit is drawn.
  await browser.context.addInitScript(() => {
    const made = (window.__dsightPlots = []);
    let U;
    Object.defineProperty(window, "uPlot", {
      configurable: true,
      get: () => U,
      set: (v) => {
        U = new Proxy(v, { construct: (t, args, nt) => made[made.push(Reflect.construct(t, args, nt)) - 1] });
      },
    });
  });
  server = await serve(report);
  fs.mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// windows picks the zoomed ranges from the logged reconfigurations: the
// whole run, one spanning both, one before any, one after the limit was
// dropped, and two with an end on a reconfiguration.
function windows(d) {
  const changes = truth.scopes.flatMap((s) => s.settings.filter((x) => x.t > 0).map((x) => x.t)).sort((a, b) => a - b);
  assert.equal(changes.length, 2, `two mid-run reconfigurations, got ${changes}`);
  const [raised, dropped] = changes;
  return [
    [0, d],
    [raised - 90.25, dropped + 60.25],
    [Math.max(0, raised - 120.25), raised - 0.25],
    [dropped + 0.25, Math.min(d, dropped + 150.25)],
    // Ranges that start or end on a reconfiguration.
    [raised, raised + 60.25],
    [dropped - 60.25, dropped],
  ];
}

// pinByPicker pins a family the way a user does: choose it in the metric
// picker, press Pin.
async function pinByPicker(page, name) {
  await page.selectOption("#workerMetric", name);
  await page.waitForFunction((name) => traceExplorer.getState().metric === name, name);
  await page.click("#pinMetric");
  await page.waitForFunction((name) => traceExplorer.getState().pinnedMetrics.includes(name), name);
}

// legendOf reads a card's legend rows: caption and capacity lines.
function legendOf(page, name) {
  return page.$$eval(`.metric-card[data-metric-name="${name}"] .ds-metric-legend-row`, (rows) =>
    rows.map((r) => ({
      id: r.dataset.seriesId,
      caption: r.querySelector(".ds-metric-legend-toggle").textContent,
      lines: [...r.querySelectorAll(".ds-capacity > span:not(.ds-limit-key)")].map((s) => s.textContent),
    })),
  );
}

const near = (a, b) => Math.abs(a - b) <= 1e-6;

// checkWindow compares both pinned families over the shown range [from, to]
// with the independent reading; it records the legend forms seen.
async function checkWindow(page, from, to, forms) {
  const at = `[${from}, ${to}]`;
  for (const f of FAMILIES) {
    // queryMetrics answers an array of every series (the reference's shape).
    const answer = { items: await page.evaluate((a) => traceExplorer.queryMetrics(a), { name: f.name, from, to }) };
    const limits = { items: await page.evaluate((a) => traceExplorer.queryMetrics(a), { name: f.limit, from, to }) };
    const legend = await legendOf(page, f.name);
    const scopes = truth.scopes.filter((s) => s.samples.some((x) => x[f.value] !== null));
    assert.equal(answer.items.length, scopes.length, `${f.name} ${at}: one series per logging scope`);
    assert.equal(legend.length, scopes.length, `${f.name} ${at}: one legend row per series`);
    for (const scope of scopes) {
      const want = expectCapacity(scope, f, from, to);
      const where = `${f.name} ${scope.file} ${at}`;
      forms.add(want.form);
      if (want.unavailable > 0 && want.unavailable < want.samples) forms.add("partly unavailable");
      const item = answer.items.find((s) => s.worker === scope.worker && s.rank === String(scope.rank) && s.host === scope.host);
      assert.ok(item, `${where}: no series for ${scope.worker} rank ${scope.rank}`);
      assert.equal(item.rank_kind, "attention_tp");
      assert.equal(item.reference.name, f.limit);
      assert.equal(item.reference.label, f.label);
      // The series statistics.
      assert.equal(item.samples, want.samples, `${where}: samples`);
      assert.equal(item.max, want.max, `${where}: max`);
      assert.equal(item.min, want.min, `${where}: min`);
      if (want.samples) {
        assert.ok(near(item.first_time, want.firstTime) && near(item.last_time, want.lastTime), `${where}: first/last ${item.first_time}/${item.last_time}, want ${want.firstTime}/${want.lastTime}`);
      }
      // The capacity answer.
      const c = item.capacity;
      assert.equal(c.samples, want.samples, `${where}: capacity samples`);
      assert.equal(c.unavailable, want.unavailable, `${where}: samples without a valid limit`);
      assert.equal(c.limit, want.limit, `${where}: limit kind (values ${want.limitValues})`);
      if (want.limit !== "unavailable") assert.deepEqual([c.limit_min, c.limit_max], [want.limitMin, want.limitMax], `${where}: limit range`);
      if (want.samples) {
        assert.equal(c.peak[1], want.max, `${where}: peak value`);
        assert.ok(near(c.peak[0], want.peakTime), `${where}: peak at ${c.peak[0]}, first maximum at ${want.peakTime}`);
      }
      if (want.usage === null) assert.ok(!c.highest_usage, `${where}: usage ${JSON.stringify(c.highest_usage)} without a valid limit`);
      else {
        assert.ok(c.highest_usage, `${where}: no usage, want ${want.usage}`);
        assert.ok(Math.abs(c.highest_usage[1] - want.usage) < 1e-12, `${where}: usage ${c.highest_usage[1]}, want ${want.usage} (peak ÷ smallest limit would be ${want.max / want.limitMin})`);
        assert.ok(near(c.highest_usage[0], want.usageTime), `${where}: usage at ${c.highest_usage[0]}, want ${want.usageTime}`);
      }
      // The limit series: a setting carried into the range is the
      // last one strictly before it, never one logged later.
      const lim = limits.items.find((s) => s.worker === scope.worker && s.rank === String(scope.rank) && s.host === scope.host);
      assert.ok(lim && lim.id === item.reference.series_id, `${where}: reference series ${item.reference.series_id}`);
      if (f.ref === "setting") {
        const carried = want.carried;
        // carried_setting is the array of points at that timestamp.
        if (carried === null) assert.ok(!lim.carried_setting, `${where}: carried ${JSON.stringify(lim.carried_setting)}`);
        else {
          assert.equal(lim.carried_setting?.length, 1, `${where}: carried ${JSON.stringify(lim.carried_setting)}`);
          const [held] = lim.carried_setting;
          assert.ok(near(held[0], carried.t), `${where}: carried ${JSON.stringify(lim.carried_setting)}, want ${JSON.stringify(carried)}`);
          assert.equal(held[1], carried.v, `${where}: carried value`);
          assert.ok(lim.source_ids.includes(held[2]) && held[3] === carried.line, `${where}: carried evidence ${JSON.stringify(held)}, want line ${carried.line}`);
        }
      }
      // The legend drawn for that series.
      const row = legend.find((r) => r.id === String(item.id));
      assert.ok(row, `${where}: no legend row for series ${item.id}`);
      assert.equal(row.caption, `${scope.worker} · attention_tp ${scope.rank}`);
      assert.deepEqual(row.lines, legendLines(want, f), `${where}: legend`);
    }
  }
}

// limitCoverage measures, on the chart of family name, the share of pixels
// along each held limit stretch {x0, x1, v, colors} drawn in the legend
// colour of the series holding that limit there (or, where several hold
// it, in any colour).
function limitCoverage(page, name, stretches) {
  return page.evaluate(
    ([name, stretches]) => {
      const card = document.querySelector(`.metric-card[data-metric-name="${name}"]`);
      const u = window.__dsightPlots.filter((p) => card.contains(p.root)).pop();
      const canvas = u.root.querySelector("canvas");
      const ctx = canvas.getContext("2d");
      const rgb = (css) => css.match(/\d+/g).slice(0, 3).map(Number);
      return stretches.map((s) => {
        const colors = s.colors.map(rgb);
        const y = Math.round(u.valToPos(s.v, "y", true));
        const a = Math.ceil(u.valToPos(s.x0, "x", true)) + 2;
        const b = Math.floor(u.valToPos(s.x1, "x", true)) - 2;
        if (b - a < 20) return null;
        const img = ctx.getImageData(a, y - 1, b - a, 3).data;
        let hit = 0;
        for (let x = 0; x < b - a; x++) {
          let on = false;
          for (let r = 0; r < 3 && !on; r++) {
            const i = (r * (b - a) + x) * 4;
            const px = [img[i], img[i + 1], img[i + 2]];
            // One holder: its own colour; several: lines drawn over each
            // other blend, so any coloured (not grey grid) pixel counts.
            if (img[i + 3] === 0) continue;
            on = colors.length === 1 ? Math.abs(colors[0][0] - px[0]) + Math.abs(colors[0][1] - px[1]) + Math.abs(colors[0][2] - px[2]) < 90 : Math.max(...px) - Math.min(...px) > 30;
          }
          if (on) hit++;
        }
        return hit / (b - a);
      });
    },
    [name, stretches],
  );
}

// checkLimitLines lists the held limits of the decode family's series that
// are not drawn as a dashed line across the stretch they hold.
async function checkLimitLines(page, from, to) {
  const f = FAMILIES[0];
  const rows = await page.$$eval(`.metric-card[data-metric-name="${f.name}"] .ds-metric-legend-row`, (rs) => rs.map((r) => ({ caption: r.querySelector(".ds-metric-legend-toggle").textContent, color: getComputedStyle(r.querySelector(".swatch")).backgroundColor })));
  const held = truth.scopes
    .filter((s) => s.samples.some((x) => x.running !== null))
    .flatMap((s) => heldLimits(s, from, to).map((h) => ({ ...h, caption: `${s.worker} · attention_tp ${s.rank}` })));
  const color = (caption) => rows.find((r) => r.caption === caption).color;
  // Where two series hold the same limit the later one covers the other:
  // cut the stretches where their holders change and accept any holder's
  // colour on each piece.
  const pieces = [];
  for (const v of new Set(held.map((h) => h.v))) {
    const same = held.filter((h) => h.v === v);
    const cuts = [...new Set(same.flatMap((h) => [h.x0, h.x1]))].sort((a, b) => a - b);
    for (let k = 1; k < cuts.length; k++) {
      const holders = same.filter((h) => h.x0 <= cuts[k - 1] && cuts[k] <= h.x1);
      if (holders.length) pieces.push({ x0: cuts[k - 1], x1: cuts[k], v, who: holders.map((h) => h.caption).join(" or "), colors: holders.map((h) => color(h.caption)) });
    }
  }
  const cover = await limitCoverage(page, f.name, pieces);
  return pieces.flatMap((p, i) => (cover[i] === null || cover[i] > 0.3 ? [] : [`view [${from.toFixed(3)}, ${to.toFixed(3)}]: ${p.who} holds limit ${p.v} over [${p.x0.toFixed(3)}, ${p.x1.toFixed(3)}], drawn over ${(cover[i] * 100).toFixed(0)}% of it`]));
}

for (const mode of ["file", "http"]) {
  const url = () => (mode === "file" ? fileURL(report) : server.url);

  test(`${mode}: two pinned capacity charts match an independent reading of the logs on every zoom`, async () => {
    const { page, problems } = await open(browser.context, url());
    const dialogs = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      d.dismiss();
    });
    try {
      const meta = (await page.evaluate(() => traceExplorer.describe())).meta;
      assert.equal(meta.origin_ns, String(truth.originNS), "origin: the earliest profiling request start of the client export");
      assert.equal(meta.iteration_timezone, ZONE);
      for (const f of FAMILIES) await pinByPicker(page, f.name);
      const forms = new Set();
      assert.deepEqual((await page.evaluate(() => traceExplorer.getState())).pinnedMetrics, FAMILIES.map((f) => f.name));

      for (const [from, to] of windows(meta.duration)) {
        await page.evaluate(([from, to]) => {
          traceExplorer.selectRange(from, to);
          return traceExplorer.whenMetricsReady();
        }, [from, to]);
        await checkWindow(page, from, to, forms);
      }
      // A range whose ends are sample times holds both samples.
      const edges = truth.scopes.find((x) => x.settings.some((y) => y.v === 128)).samples.filter((x) => x.running !== null && x.t > 0);
      const [a, b] = [edges[Math.floor(edges.length / 3)].t, edges[Math.floor((2 * edges.length) / 3)].t];
      await page.evaluate(([from, to]) => {
        traceExplorer.selectRange(from, to);
        return traceExplorer.whenMetricsReady();
      }, [a, b]);
      await checkWindow(page, a, b, forms);
      // Dragging across a chart zooms every pinned chart to the dragged range.
      const over = page.locator(`.metric-card[data-metric-name="${FAMILIES[0].name}"] .u-over`);
      await over.scrollIntoViewIfNeeded();
      const box = await over.boundingBox();
      await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      const dragged = await page.evaluate(() => traceExplorer.getState());
      assert.ok(dragged.from > a && dragged.to < b, `dragged range ${dragged.from}–${dragged.to} inside [${a}, ${b}]`);
      await checkWindow(page, dragged.from, dragged.to, forms);
      // The windows exercise every legend form at least once.
      for (const form of ["constant", "changed", "unavailable", "partly unavailable"]) assert.ok(forms.has(form), `no window showed a ${form} limit; forms seen ${[...forms]}`);
      if (mode === "file") await page.locator(".metric-card").first().screenshot({ path: path.join(OUT, "capacity-pinned.png") });
      assert.deepEqual(dialogs, []);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  // A limit held until a configuration without a valid limit must still be
  // drawn up to that configuration (a stepped segment ending on a null
  // point once vanished).
  test(`${mode}: each held decode batch limit is drawn across the stretch it holds`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const d = (await page.evaluate(() => traceExplorer.describe())).meta.duration;
      await page.evaluate((name) => {
        traceExplorer.setState({ pinnedMetrics: [name], metric: name });
        return traceExplorer.whenMetricsReady();
      }, FAMILIES[0].name);
      const missing = [];
      for (const [from, to] of windows(d)) {
        await page.evaluate(([from, to]) => {
          traceExplorer.selectRange(from, to);
          return traceExplorer.whenMetricsReady();
        }, [from, to]);
        missing.push(...(await checkLimitLines(page, from, to)));
      }
      assert.deepEqual(missing, []);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: a hostile label value from the capture renders as text`, async () => {
    const { page, problems } = await open(browser.context, url());
    const dialogs = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      d.dismiss();
    });
    try {
      const name = "dynamo_frontend_inflight_requests";
      await page.evaluate((name) => {
        traceExplorer.setState({ pinnedMetrics: [name], metric: name });
        return traceExplorer.whenMetricsReady();
      }, name);
      const card = page.locator(`.metric-card[data-metric-name="${name}"]`);
      await card.locator(".ds-metric-labels summary").first().click();
      const labels = card.locator(".ds-metric-labels pre").first();
      assert.equal(await labels.evaluate((el) => el.childElementCount), 0, "the Labels disclosure holds text only");
      const pre = await labels.textContent();
      const shown = JSON.parse(pre);
      assert.ok(shown.labels.some((l) => l.key === "metric.model" && l.value === HOSTILE), pre);
      assert.ok(shown.raw_name.includes(HOSTILE.replace(/"/g, '\\"')), shown.raw_name);
      assert.equal(await page.locator("img").count(), 0, "no element from a label value");
      assert.deepEqual(dialogs, []);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
