// The page's Nsight section in Debian's chromium from file:// and from a
// loopback HTTP server, driven as a user would: Inspect Nsight on a
// request-path card opens that worker's report at the shared range; a broad
// range shows the precomputed density with its bin width and note; zooming
// below the exact threshold draws the exact ranges, and clicking one fits
// it; Inspect phase in Nsight, compare mode, the Nsight tab's hotspots and
// ranges, exportSelection().profile, stale loads cancelled by the next view
// change, and the coverage line. Every count is checked against the CLI.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { cli, buildFrom, ROOT, OUT } from "./fixture.mjs";

let work;
let report;
let browser;
let server;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-nsightpage-"));
  const run = path.join(work, "run");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "4", "-requests", "150", "-sources", "aiperf,frontend,otel,workers,trtllm,nsight", "-nsight-ranges", "30000"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  report = buildFrom(run, path.join(work, "report"), "--iteration-timezone", "UTC");
  browser = await launch();
  server = await serve(report);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// fit is state.js's fitRange: the range ± max(6 %, 10 µs), clamped.
const fit = (a, b, dur) => {
  const pad = Math.max((b - a) * 0.06, 1e-5);
  return [Math.max(0, a - pad), Math.min(dur, b + pad)];
};

const canvasOf = (page, id) => page.locator(`.nsight-canvas[data-profile="${id}"]`);

for (const mode of ["file", "http"]) {
  test(`${mode}: Inspect Nsight from a request card, then zoom from density to exact and click a range to fit it`, async () => {
    const { page, problems } = await open(browser.context, mode === "file" ? fileURL(report) : server.url);
    try {
      const profiles = cli(report, "profiles", { limit: 1000 }).items;
      const decode = profiles.find((p) => p.worker === "decode-0");
      const before = await page.evaluate(() => traceExplorer.getState());
      assert.notEqual(before.request, null);
      const card = page.locator('[data-path-worker="decode-0"]');
      assert.equal(await card.isDisabled(), false, "a worker with a report has an enabled card");
      assert.equal(await card.getAttribute("title"), "Inspect Nsight · decode-0");
      await card.click();
      await page.evaluate(() => traceExplorer.whenDetailsReady());
      const st = await page.evaluate(() => traceExplorer.getState());
      assert.equal(st.nsys, true);
      assert.equal(st.tab, "nsys");
      assert.equal(st.profile, decode.id);
      assert.deepEqual([st.from, st.to, st.request], [before.from, before.to, before.request], "the card keeps the range and the request");

      // The whole run: more than 20,000 rows in the overlapping shards.
      const dur = (await page.evaluate(() => traceExplorer.describe())).meta.duration;
      await page.evaluate((d) => traceExplorer.selectRange(0, d), dur);
      await page.evaluate(() => traceExplorer.whenDetailsReady());
      const canvas = canvasOf(page, decode.id);
      assert.equal(await canvas.getAttribute("data-mode"), "density");
      const block = page.locator(`.nsight-profile[data-profile="${decode.id}"]`);
      assert.equal((await block.locator(".nsight-head .row-label").textContent()).trim(), `Nsight · decode-0 / gpu ${decode.gpus}`);
      const note = await block.locator(".nsight-note").textContent();
      assert.match(note, /512-bin density, bin width /);
      assert.ok(note.includes("not CPU utilisation") && note.includes("overlapping NVTX intervals"), note);
      assert.ok(await block.locator(".nsight-request .nsight-span.mine").count() >= 1, "the request's worker.operation span is drawn above the lanes");

      // One second of the selected request: exact ranges, as many as the CLI has.
      const r = await page.evaluate(() => traceExplorer.getRequest(traceExplorer.getState().request));
      const [from, to] = [r.start, Math.min(r.start + 1, dur)];
      await page.evaluate(([a, b]) => traceExplorer.selectRange(a, b), [from, to]);
      await page.evaluate(() => traceExplorer.whenDetailsReady());
      assert.equal(await canvas.getAttribute("data-mode"), "exact");
      const want = cli(report, "nsys", { profile: decode.id, from, to, limit: 10000 });
      assert.ok(want.total > 0);
      assert.equal(Number(await canvas.getAttribute("data-drawn")), want.total, "every range is drawn (one thread, non-overlapping)");
      assert.ok((await block.locator(".nsight-note").textContent()).startsWith(`${want.total.toLocaleString("en-US")} exact ranges in the window`));
      await page.screenshot({ path: path.join(OUT, `nsight-tracks-${mode}.png`), fullPage: true });

      // Click the longest range wholly inside the window: the range fits it.
      const inside = want.items.filter((it) => it.start >= from && it.end <= to).sort((a, b) => b.end - b.start - (a.end - a.start))[0];
      // The tracks sit below the session tree: bring them into the viewport,
      // where a pointer can reach them, as a user would scroll to them.
      await canvas.scrollIntoViewIfNeeded();
      const box = await canvas.boundingBox();
      const x = box.x + ((inside.start + inside.end) / 2 - from) / (to - from) * box.width;
      await page.mouse.click(x, box.y + 2 + 7);
      const after = await page.evaluate(() => traceExplorer.getState());
      const [fa, fb] = fit(inside.start, inside.end, dur);
      assert.ok(Math.abs(after.from - fa) < 1e-9 && Math.abs(after.to - fb) < 1e-9, `fitted ${after.from}–${after.to}, want ${fa}–${fb}`);
      await page.evaluate(() => traceExplorer.whenDetailsReady());
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test("Inspect phase in Nsight, selectSpan with nsys, compare mode, the Nsight tab and exportSelection", async () => {
  const { page, problems } = await open(browser.context, fileURL(report));
  try {
    const profiles = cli(report, "profiles", { limit: 1000 }).items;
    const decode = profiles.find((p) => p.worker === "decode-0");
    const frontend = profiles.find((p) => p.worker === "frontend");
    const id = await page.evaluate(() => traceExplorer.getState().request);
    const lc = await page.evaluate((id) => {
      traceExplorer.selectRequest(id, { expand: true });
      return traceExplorer.getLifecycle(id);
    }, id);
    const req = await page.evaluate((id) => traceExplorer.getRequest(id), id);
    const decodeStage = lc.stages.find((s) => s.source_span_id && req.spans.find((sp) => sp.id === s.source_span_id)?.worker === "decode-0");
    const clientStage = lc.stages.find((s) => !s.source_span_id);

    // The button on a selected milestone.
    await page.evaluate((sid) => traceExplorer.setState({ tab: "request", span: sid }), decodeStage.id);
    await page.locator("#inspectPhaseNsys").click();
    await page.evaluate(() => traceExplorer.whenDetailsReady());
    let st = await page.evaluate(() => traceExplorer.getState());
    const dur = (await page.evaluate(() => traceExplorer.describe())).meta.duration;
    const [fa, fb] = fit(decodeStage.start, decodeStage.end, dur);
    assert.equal(st.profile, decode.id);
    assert.ok(Math.abs(st.from - fa) < 1e-9 && Math.abs(st.to - fb) < 1e-9, "the phase is fitted");
    assert.equal(st.span, decodeStage.id);

    // The API: a stage without a source span is an error; so is a worker without a report.
    await assert.rejects(page.evaluate((sid) => traceExplorer.selectSpan(sid, { nsys: true }), clientStage.id), /no source span/);
    await assert.rejects(page.evaluate(() => traceExplorer.inspectNsys({ worker: "decode-9" })), /No Nsight report for worker decode-9/);

    // Compare: frontend, prefill, decode, in that order.
    const shown = await page.evaluate(async () => {
      await traceExplorer.inspectNsys({ worker: "decode-0", compare: true });
      return [...document.querySelectorAll(".nsight-profile .nsight-head .row-label")].map((e) => e.textContent.split(" · ")[1].split(" / ")[0]);
    });
    assert.deepEqual(shown, ["frontend", "prefill-0", "decode-0"]);

    // The frontend's tab over the whole run: CPU hotspots as the CLI counts them.
    const res = await page.evaluate(async (d) => traceExplorer.inspectNsys({ worker: "frontend", from: 0, to: d }), dur);
    assert.deepEqual(res, await page.evaluate((d) => traceExplorer.queryNsys({ profile: undefined, from: 0, to: d }), dur));
    const cpu = cli(report, "cpu", { profile: frontend.id, from: 0, to: dur, limit: 12 });
    assert.ok(cpu.total_samples > 0);
    const symbols = await page.locator(".hotspots tbody td.symbol").allTextContents();
    assert.deepEqual(symbols, cpu.hotspots.map((h) => (h.symbol.length > 130 ? `${h.symbol.slice(0, 130)}…` : h.symbol)));
    assert.equal(await page.locator("#nsightProfile").inputValue(), String(frontend.id));

    // Ranges in the window, exact for the frontend's few ranges.
    const names = await page.locator(".top-names tbody td.symbol").allTextContents();
    const all = cli(report, "nsys", { profile: frontend.id, from: 0, to: dur, limit: 10000 });
    assert.deepEqual(new Set(names), new Set(all.items.map((i) => i.name)));

    // The export holds the Nsight page shown; without tracks, none.
    const exp = await page.evaluate(() => traceExplorer.exportSelection());
    const want = cli(report, "nsys", { profile: frontend.id, from: 0, to: dur, limit: 200 });
    assert.equal(exp.profile.total, want.total);
    assert.deepEqual(exp.profile.items.map((i) => i.rowid), want.items.map((i) => i.rowid));
    await page.locator("#nsightToggle").click();
    assert.equal((await page.evaluate(() => traceExplorer.exportSelection())).profile, null);

    // Restore: an unknown profile is dropped; a known one is kept.
    st = await page.evaluate(() => traceExplorer.setState({ profile: 999, nsys: true }));
    assert.equal(st.profile, null);
    st = await page.evaluate((p) => traceExplorer.setState({ profile: p, nsys: true }), decode.id);
    assert.equal(st.profile, decode.id);
    await page.evaluate(() => traceExplorer.whenDetailsReady());
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a newer view change cancels the detail loads of the one before", async () => {
  // Without the idle prefetch (nsightprefetch.js), whose spare shards would
  // be counted among the engine's chunks: only the views' loads are counted.
  const { page, problems } = await open(browser.context, `${fileURL(report)}?nsight-prefetch-bytes=0`);
  try {
    const decode = cli(report, "profiles", { worker: "decode-0" }).items[0];
    const got = await page.evaluate(async (id) => {
      const x = traceExplorer;
      const d = x.describe().meta.duration;
      let events = 0;
      window.addEventListener("trace-explorer:details-ready", () => events++);
      const first = x.inspectNsys({ profile: id, from: 10, to: 11 }); // its chunk starts loading
      x.selectRange(d - 20, d - 19); // a chunk at the other end of the run
      await first.catch(() => {});
      await x.whenDetailsReady();
      await new Promise((r) => setTimeout(r, 300)); // the stale scripts arrive; nothing is handed over
      const mode = document.querySelector(`.nsight-canvas[data-profile="${id}"]`).dataset.mode;
      return { status: x.detailDataStatus(), events, mode, state: x.getState() };
    }, decode.id);
    assert.equal(got.mode, "exact");
    assert.ok(got.status.cancelledLoads >= 1, JSON.stringify(got.status));
    assert.equal(got.status.pendingLoads, 0);
    assert.equal(got.status.cachedChunks, 1, "only the latest window's chunk was handed to the engine");
    assert.ok(got.status.decodedBytes <= got.status.maxDecodedBytes);
    assert.equal(got.events, 1, "details-ready announces the latest rendering only");
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("the coverage line, the footer and the Agent API tab name the Nsight reports and batch observations", async () => {
  const { page, problems } = await open(browser.context, fileURL(report));
  try {
    const sum = cli(report, "summary");
    assert.ok(sum.counts.profiles > 0 && sum.counts.iterations > 0, JSON.stringify(sum.counts));
    const cov = await page.locator("#coverage").textContent();
    assert.ok(cov.includes(`${sum.counts.profiles} Nsight reports`), cov);
    assert.ok(cov.includes(`${sum.counts.iterations.toLocaleString("en-US")} batch observations`), cov);
    assert.ok((await page.locator("#footerInfo").textContent()).endsWith(`${sum.counts.profiles} Nsight reports`));
    assert.equal(await page.locator("#legendNsight").isVisible(), true);
    await page.evaluate(() => traceExplorer.setState({ tab: "api" }));
    assert.match(await page.locator(".api-tab pre.code").textContent(), /await x\.inspectNsys\(\{worker: /);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
