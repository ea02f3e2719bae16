// Server-activity lanes: a run whose server spans no client request owns
// (an OTel-only run, or spans that did not join) draws them on the
// timeline, one lane per role and host, instead of only counting them in
// the overview. Bars are the spans in range from the engine's server_spans
// answer (its first page of up to 1,000; a note says when more exist).

import { $, h, clear, fmtSeconds } from "./dom.js";
import { ask } from "./engine.js";
import { lanePct } from "./timeaxis.js";

const LIMIT = 1000;

export function renderServerLanes(view) {
  const caps = view.summary.capabilities;
  let host = document.getElementById("serverActivity");
  if (caps.requests || !caps.server_activity) {
    if (host) host.remove();
    return;
  }
  if (!host) {
    host = h("div", { id: "serverActivity", class: "server-activity" });
    $("emptyTimeline").before(host);
  }
  $("emptyTimeline").hidden = true;
  const { from, to } = view.state;
  const page = ask("server_spans", { from, to, limit: LIMIT });
  const lanes = new Map(); // "role · host" → spans
  for (const sp of page.items) {
    const key = `${sp.role || "role unknown"} · ${sp.host ?? "host unknown"}`;
    if (!lanes.has(key)) lanes.set(key, []);
    lanes.get(key).push(sp);
  }
  const x = (t) => lanePct(view.state, t);
  clear(host);
  host.appendChild(h("div", { class: "row breakdown-head" }, h("div", { class: "row-label" }, "Server activity (no client request)"), h("div", { class: "lane note" }, `${page.total.toLocaleString("en-US")} server span(s) in range${page.total > page.items.length ? `; the first ${page.items.length.toLocaleString("en-US")} are drawn, zoom in for the rest` : ""}`)));
  for (const key of [...lanes.keys()].sort()) {
    const bars = lanes.get(key).map((sp) =>
      h("button", {
        type: "button",
        class: "activity server-span",
        style: { left: `${x(sp.start)}%`, width: `${Math.max(x(sp.end) - x(sp.start), 0)}%` },
        title: `${sp.name}: ${((sp.end - sp.start) * 1000).toFixed(3)} ms recorded, ${fmtSeconds(sp.start)} – ${fmtSeconds(sp.end)}`,
        dataset: { span: sp.id },
      }),
    );
    host.appendChild(h("div", { class: "row activity-row server-activity-row track", dataset: { activityLane: key } }, h("div", { class: "row-label" }, h("span", { class: "name", title: key }, key)), h("div", { class: "lane" }, bars)));
  }
}
