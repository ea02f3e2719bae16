// Server-activity lanes: a run whose server spans no client request owns
// (an OTel-only run, or spans that did not join) draws them on the
// timeline, one lane per role and host, instead of only counting them in
// the overview. The engine's server_lanes answer packs every span in range
// into sub-lanes so overlapping spans never share one (each bar carries
// data-sub-lane); when the range holds more spans than can be drawn, each
// lane shows the engine's density instead — how many of its spans overlap
// each bin — and says so with the exact count.

import { $, h, clear, fmtSeconds } from "./dom.js";
import { ask } from "./engine.js";
import { lanePct, laneWidthPct, laneBox } from "./timeaxis.js";

// Sub-lane height in px: full bars for a few, thinner ones for many, so a
// lane stays under ~160 px however many spans overlap.
const subLaneHeight = (rows) => (rows <= 12 ? 12 : Math.max(2, Math.floor(160 / rows)));
const GAP = 2;

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
  // The lane's width lets the engine pack each bar as wide as it is drawn
  // (at least 2 px), so drawn bars in one sub-lane never overlap.
  const pixels = Math.min(Math.max(Math.round(laneBox()?.width || 1000), 1), 8192);
  const ans = ask("server_lanes", { from, to, bins: 200, pixels });
  const density = ans.drawn === "density";
  const n = (x) => x.toLocaleString("en-US");
  const note = density
    ? `${n(ans.total)} server span(s) in range, more than the ${n(ans.max_spans)} drawn as bars: each lane shows how many of its spans overlap each ${fmtSeconds(ans.lanes[0]?.density?.bin_seconds ?? 0)} bin (derived from the recorded times); zoom in to see every span`
    : `${n(ans.total)} server span(s) in range, every one drawn; overlapping spans are stacked in sub-lanes`;
  clear(host);
  host.appendChild(h("div", { class: "row breakdown-head" }, h("div", { class: "row-label" }, "Server activity (no client request)"), h("div", { class: "lane note", dataset: { serverDrawn: ans.drawn, serverTotal: String(ans.total) } }, note)));
  for (const lane of ans.lanes) {
    const label = h("div", { class: "row-label" }, h("span", { class: "name", title: lane.key }, lane.key), h("span", { class: "muted" }, ` ${n(lane.total)}`));
    const box = density ? densityLane(view.state, lane) : spanLane(view.state, lane);
    host.appendChild(h("div", { class: "row activity-row server-activity-row track", dataset: { activityLane: lane.key, subLanes: String(lane.rows?.length ?? 0), laneTotal: String(lane.total) } }, label, box));
  }
}

function spanLane(state, lane) {
  const rows = lane.rows || [];
  const hgt = subLaneHeight(rows.length);
  const bars = [];
  rows.forEach((row, r) => {
    for (const sp of row) {
      bars.push(
        h("button", {
          type: "button",
          class: "activity server-span",
          style: { left: `${lanePct(state, sp.start)}%`, width: `${laneWidthPct(state, sp.start, sp.end)}%`, top: `${GAP + r * hgt}px`, height: `${Math.max(hgt - 1, 1)}px` },
          title: `${sp.name}: ${((sp.end - sp.start) * 1000).toFixed(3)} ms recorded, ${fmtSeconds(sp.start)} – ${fmtSeconds(sp.end)}`,
          dataset: { span: sp.id, subLane: String(r) },
        }),
      );
    }
  });
  return h("div", { class: "lane", style: { height: `${2 * GAP + Math.max(rows.length, 1) * hgt}px` } }, bars);
}

function densityLane(state, lane) {
  const d = lane.density;
  const H = 40;
  const bars = [];
  d.counts.forEach((c, b) => {
    if (!c) return;
    const a = state.from + b * d.bin_seconds;
    const e = Math.min(a + d.bin_seconds, state.to);
    bars.push(
      h("div", {
        class: "server-density",
        style: { left: `${lanePct(state, a)}%`, width: `${laneWidthPct(state, a, e)}%`, height: `${Math.max(1, Math.round((c / d.max) * H))}px` },
        title: `${c.toLocaleString("en-US")} span(s) overlap ${fmtSeconds(a)} – ${fmtSeconds(e)}`,
        dataset: { count: String(c) },
      }),
    );
  });
  return h("div", { class: "lane server-density-lane", style: { height: `${H + 2 * GAP}px` } }, bars);
}
