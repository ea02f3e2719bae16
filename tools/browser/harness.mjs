// Browser test harness: Debian's chromium driven by playwright-core, a fresh
// profile per launch, a loopback static server, and a page wrapper that
// records console errors, uncaught exceptions and any request that would
// leave the machine.

import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1400, height: 900 } });
  return {
    context,
    profile,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".json": "application/json", ".css": "text/css" };

// serve starts a static server for dir on 127.0.0.1 and an ephemeral port.
export async function serve(dir) {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const file = path.join(dir, path.normalize(rel));
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] || "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/index.html`, close: () => new Promise((r) => server.close(r)) };
}

export function fileURL(dir) {
  return pathToFileURL(path.join(dir, "index.html")).href;
}

// open navigates to url, waits for trace-explorer:ready, and returns the page
// with its recorded problems. init, when given, runs in the page before
// any of the page's own scripts. timeoutMs bounds the wait for ready (a
// benchmark of a large report on a loaded box needs longer).
export async function open(context, url, { width = 1400, height = 900, init, timeoutMs = 20000 } = {}) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height });
  const problems = [];
  const requests = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
  await page.route("**/*", (route) => {
    const u = new URL(route.request().url());
    requests.push(u.href);
    const local = u.protocol === "file:" || u.protocol === "data:" || u.protocol === "blob:" || (u.protocol === "http:" && u.hostname === "127.0.0.1");
    if (!local) {
      problems.push(`request leaving the machine: ${u.href}`);
      return route.abort();
    }
    return route.continue();
  });
  await page.addInitScript(() => {
    window.__dsightReady = new Promise((resolve) => window.addEventListener("trace-explorer:ready", () => resolve(performance.now()), { once: true }));
  });
  if (init) await page.addInitScript(init);
  await page.goto(url);
  const readyAt = await page.evaluate((ms) => Promise.race([window.__dsightReady, new Promise((_, rej) => setTimeout(() => rej(new Error(`not ready: ${window.traceExplorerError}`)), ms))]), timeoutMs);
  return { page, problems, requests, readyAt };
}

// canon is a region's elements as text: tag, attributes in name order
// (style properties sorted) and children, so two regions built in other
// orders of attribute writes compare equal when they show the same. It
// runs in the page: page.evaluate(canon, selector).
export function canon(sel) {
  const el = document.querySelector(sel);
  const walk = (n) => {
    if (n.nodeType === Node.TEXT_NODE) return JSON.stringify(n.data);
    if (n.nodeType !== Node.ELEMENT_NODE) return "";
    const attrs = [...n.attributes]
      .map((a) => [a.name, a.name === "style" ? a.value.split(";").map((p) => p.trim()).filter(Boolean).sort().join("; ") : a.name === "class" ? a.value.split(/\s+/).filter(Boolean).sort().join(" ") : a.value])
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    return `<${n.localName} ${attrs.join(" ")}>${[...n.childNodes].map(walk).join("")}</${n.localName}>`;
  };
  return el ? walk(el) : null;
}

// assertDrawnAsFresh checks that page, drawn step by step, shows in each of
// regions what a fresh load of its view (its state in the URL fragment of
// report's index.html) draws, region by region (canon); settle, when
// given, waits on the fresh page before it is read.
export async function assertDrawnAsFresh(page, context, report, regions, settle) {
  const state = await page.evaluate(() => traceExplorer.getState());
  const mine = {};
  for (const sel of regions) mine[sel] = await page.evaluate(canon, sel);
  const fresh = await open(context, `${fileURL(report)}#view=${encodeURIComponent(JSON.stringify(state))}`);
  try {
    if (settle) await settle(fresh.page);
    assert.deepEqual(await fresh.page.evaluate(() => traceExplorer.getState()), state);
    for (const sel of regions) assert.equal(await fresh.page.evaluate(canon, sel), mine[sel], `${sel} as a fresh load draws it`);
    assert.deepEqual(fresh.problems, []);
  } finally {
    await fresh.page.close();
  }
}
