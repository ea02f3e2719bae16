// Slow requests up front: p90/p95/p99 lanes above the session tree, each
// holding only the completed requests in the range at or beyond that
// percentile of latency (or of TTFT, with the switch), exactly the
// requests the engine's "stats" answer names. Bars are clickable like any
// request bar.

import { h, setText, fmtMs, fmtInt } from "./dom.js";
import { requestStatsFor, hasRequestStats, SLOW_LIMIT } from "./stats.js";
import { lanePct } from "./timeaxis.js";

// requestLabel is a request bar's accessible label and hover text: its id,
// latency and TTFT (unknown stays unknown).
export function requestLabel(id, latencyS, ttftMs) {
  return `Request ${id} · latency ${latencyS.toFixed(3)} s · TTFT ${fmtMs(ttftMs)}`;
}

export function mountSlowRows(view) {
  const tracks = document.getElementById("clientTracks");
  const box = h("div", { id: "slowRows", class: "slow-rows", role: "group", "aria-label": "Slowest requests by percentile" });
  const by = h("button", { type: "button", id: "slowBy", "aria-pressed": "false", title: "Show the rows by TTFT instead of latency" }, "By TTFT");
  const head = h("div", { class: "row slow-head" }, h("div", { class: "row-label" }, h("span", { class: "name" }, "Slowest requests"), by), h("div", { class: "lane note", id: "slowNote" }));
  box.append(head);
  tracks.parentNode.insertBefore(box, tracks);
  let metric = "latency";
  by.addEventListener("click", () => {
    metric = metric === "latency" ? "ttft" : "latency";
    by.setAttribute("aria-pressed", String(metric === "ttft"));
    setText(by, metric === "ttft" ? "By latency" : "By TTFT");
    draw();
  });
  const rows = new Map(); // percentile → row element
  // The bars are built for a range and metric, and only the selection
  // changes between most renders (a request selected): then the selected
  // class moves between the bars of the two requests instead of the rows'
  // hundreds of bars being built, styled and laid out again.
  let drawnFor = "";
  let byId = new Map(); // request id → its bars
  let marked = null; // the request whose bars carry the selected class
  const markSelected = () => {
    const id = view.state.request;
    if (id === marked) return;
    for (const el of byId.get(marked) || []) el.classList.remove("selected");
    for (const el of byId.get(id) || []) el.classList.add("selected");
    marked = id;
  };
  // The rows of a new range are asked once the range has settled: on a
  // large run the answer reads every request in the range, which a fast
  // sequence of zooms should not pay for each step.
  let timer = null;
  const update = () => {
    clearTimeout(timer);
    const st = view.state;
    box.hidden = !view.summary.counts.requests;
    if (box.hidden) return;
    if (drawnFor === `${st.from} ${st.to} ${metric}`) markSelected();
    else if (hasRequestStats(st.from, st.to, SLOW_LIMIT)) draw();
    else {
      markSelected(); // on the rows still shown until then
      timer = setTimeout(draw, 80);
    }
  };
  const draw = () => {
    const st = view.state;
    const s = requestStatsFor(st.from, st.to, SLOW_LIMIT);
    const list = s.requests.slow[metric];
    const x = (t) => lanePct(st, t);
    setText(
      document.getElementById("slowNote"),
      list.length ? `by ${metric === "ttft" ? "TTFT" : "latency"}, completed requests in range; nearest-rank percentiles` : "no completed request in range",
    );
    box.dataset.metric = metric;
    const seen = new Set();
    byId = new Map();
    marked = view.state.request;
    for (const row of list) {
      seen.add(row.percentile);
      let el = rows.get(row.percentile);
      if (!el) {
        el = h("div", { class: "row slow-row", dataset: { percentile: String(row.percentile) } }, h("div", { class: "row-label" }, h("span", { class: "name" })), h("div", { class: "lane" }));
        rows.set(row.percentile, el);
      }
      box.append(el); // keeps them in percentile order after the head
      const shown = row.requests.length < row.total ? `, ${fmtInt(row.requests.length)} slowest shown` : "";
      const unit = (v) => `${v.toFixed(3)} s`;
      setText(el.firstChild.firstChild, `p${row.percentile} ≥ ${unit(row.threshold_s)} · ${fmtInt(row.total)}${shown}`);
      el.firstChild.title = `Requests at or beyond the ${row.percentile}th percentile of ${metric === "ttft" ? "TTFT" : "latency"} (${unit(row.threshold_s)})`;
      const bars = row.requests.map((r) => {
        const label = requestLabel(r.id, r.latency_s, r.ttft_s === null ? null : r.ttft_s * 1000);
        const left = x(r.start);
        const bar = h("button", {
          type: "button",
          class: `req slow${marked === r.id ? " selected" : ""}`,
          "aria-label": label,
          title: label,
          dataset: { request: r.id },
          style: { left: `${left}%`, width: `${Math.max(x(r.end) - left, 0)}%` },
          onclick: (ev) => {
            ev.stopPropagation();
            view.selectRequest(r.id);
          },
        });
        if (!byId.has(r.id)) byId.set(r.id, []);
        byId.get(r.id).push(bar);
        return bar;
      });
      el.lastChild.replaceChildren(...bars);
    }
    for (const [p, el] of rows) if (!seen.has(p)) el.remove();
    box.dataset.range = `${st.from} ${st.to}`; // what the rows are drawn for
    drawnFor = `${st.from} ${st.to} ${metric}`;
  };
  return update;
}
