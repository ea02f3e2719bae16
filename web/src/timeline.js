// The client timeline: sessions → agents → requests, one page of sessions at
// a time, drawn from a single engine "timeline" answer.

import { h, clear, fmtMs, fmtSeconds, fmtInt } from "./dom.js";
import { agentKey } from "./state.js";

export function renderTimeline(view, page) {
  const { state } = view;
  const host = clear(document.getElementById("clientTracks"));
  const span = state.to - state.from;
  const x = (t) => ((Math.min(Math.max(t, state.from), state.to) - state.from) / span) * 100;

  for (const s of page.items) {
    const open = state.expandedSessions.has(s.id);
    host.appendChild(
      row(
        "session-row",
        [
          toggle(open, `${open ? "Collapse" : "Expand"} session ${s.id}`, () => view.toggleSession(s.id)),
          h("span", { class: "name", title: s.id }, s.id),
        ],
        [
          h("div", {
            class: "session-bar",
            style: { left: `${x(s.start)}%`, width: `${Math.max(x(s.end) - x(s.start), 0.2)}%` },
            title: `Session ${s.id}: ${s.matching} request(s) in range, ${fmtSeconds(s.start)} – ${fmtSeconds(s.end)}`,
          }),
          h("span", { class: "session-count", style: { left: `${x(s.start)}%` } }, `${s.matching} req`),
        ],
        { session: s.id },
      ),
    );
    if (!open || !s.agents) continue;
    for (const a of s.agents) {
      const key = agentKey(s.id, a.id);
      const agentOpen = state.expandedAgents.has(key);
      host.appendChild(
        row(
          "agent-row",
          [
            h("span", { class: "indent" }),
            toggle(agentOpen, `${agentOpen ? "Collapse" : "Expand"} agent ${a.id}`, () => view.toggleAgent(key)),
            h("span", { class: `agent-kind ${a.depth === 0 ? "main" : "sub"}` }, a.label),
            h("span", { class: "name", title: a.id }, a.id),
          ],
          a.bars.map((b) => bar(view, b, x)),
          { session: s.id, agent: a.id },
        ),
      );
      if (!agentOpen) continue;
      for (const b of a.bars) {
        const expanded = b.lifecycle && state.expandedRequests.has(b.id);
        host.appendChild(
          row(
            "request-row",
            [
              h("span", { class: "indent2" }),
              b.lifecycle ? toggle(expanded, `${expanded ? "Collapse" : "Expand"} lifecycle of ${b.id}`, () => view.toggleLifecycle(b.id)) : h("span", { class: "toggle-space" }),
              h("span", { class: "turn" }, b.turn === null ? "turn ?" : `turn ${b.turn}`),
              h("span", { class: "name", title: b.id }, b.id),
            ],
            [bar(view, b, x)],
            { request: b.id },
          ),
        );
        if (expanded) renderBreakdown(view, host, view.request(b.id).lifecycle, x);
      }
    }
  }
  if (page.items.length === 0) {
    host.appendChild(h("p", { class: "empty" }, state.search ? `No request matches “${state.search}” in this range.` : "No client request overlaps this range."));
  }
}

// renderBreakdown draws a request's lifecycle: one track per progress stage
// showing every stage up to it (the current one highlighted), then the raw
// activity spans on their own aligned tracks.
function renderBreakdown(view, host, lc, x) {
  const selected = view.state.span;
  host.appendChild(h("div", { class: "row breakdown-head" }, h("div", { class: "row-label" }, h("span", { class: "indent3" }), "Request breakdown · Progress milestones"), h("div", { class: "lane note" }, lc.timing)));
  lc.stages.forEach((stage, k) => {
    const blocks = lc.stages.slice(0, k + 1).map((st, j) =>
      h("button", {
        type: "button",
        class: `stage${j === k ? " current" : ""}${selected === st.id ? " selected" : ""}`,
        style: { left: `${x(st.start)}%`, width: `${Math.max(x(st.end) - x(st.start), 0)}%` },
        title: `${st.label}: ${((st.end - st.start) * 1000).toFixed(3)} ms between milestones`,
        dataset: { stageSpan: st.id, ...(j === k ? { currentStage: "" } : {}) },
        onclick: (ev) => {
          ev.stopPropagation();
          view.selectSpan(st.id);
        },
      }),
    );
    host.appendChild(row("stage-row", [h("span", { class: "indent3" }), h("span", { class: "name", title: stage.label }, stage.label)], blocks, { stageRow: stage.id }));
  });
  for (const act of lc.activities) {
    const span = h("button", {
      type: "button",
      class: `activity kind-${act.kind}${selected === act.id ? " selected" : ""}`,
      style: { left: `${x(act.start)}%`, width: `${Math.max(x(act.end) - x(act.start), 0)}%` },
      title: `${act.label}: ${((act.end - act.start) * 1000).toFixed(3)} ms recorded`,
      dataset: { stageSpan: act.id },
      onclick: (ev) => {
        ev.stopPropagation();
        view.selectSpan(act.id);
      },
    });
    host.appendChild(row("activity-row", [h("span", { class: "indent3" }), h("span", { class: "name", title: `${act.name} (${act.role})` }, `${"· ".repeat(act.depth)}${act.label}`)], [span], { stageRow: act.id }));
  }
  if (lc.issues.length) host.appendChild(h("div", { class: "row breakdown-issues" }, h("div", { class: "row-label" }), h("div", { class: "lane note warn" }, lc.issues.join(" · "))));
}

function row(kind, label, lane, data) {
  return h("div", { class: `row ${kind}`, dataset: data }, h("div", { class: "row-label" }, label), h("div", { class: "lane" }, lane));
}

function toggle(open, label, onClick) {
  return h("button", { type: "button", class: "toggle", "aria-expanded": open ? "true" : "false", "aria-label": label, title: label, onclick: onClick }, open ? "▾" : "▸");
}

function bar(view, b, x) {
  const left = x(b.start);
  const right = x(b.end);
  const width = Math.max(right - left, 0);
  const selected = view.state.request === b.id;
  const cls = ["req", b.status !== "completed" ? `status-${b.status}` : "", selected ? "selected" : "", b.first === null ? "no-first" : "", b.invalid_first ? "invalid-first" : ""].filter(Boolean).join(" ");
  const el = h("button", {
    type: "button",
    class: cls,
    style: { left: `${left}%`, width: `${width}%` },
    title: tooltip(b),
    "aria-label": `Request ${b.id}`,
    dataset: { request: b.id },
    onclick: (ev) => {
      ev.stopPropagation();
      if (view.consumeDragClick()) return;
      view.selectRequest(b.id);
    },
  });
  if (b.first !== null && !b.invalid_first && width > 0) {
    const firstPct = ((x(b.first) - left) / width) * 100;
    el.appendChild(h("span", { class: "seg ttft", style: { width: `${Math.min(Math.max(firstPct, 0), 100)}%` } }));
    el.appendChild(h("span", { class: "seg output", style: { width: `${Math.min(Math.max(100 - firstPct, 0), 100)}%` } }));
  }
  return el;
}

function tooltip(b) {
  const parts = [b.id, b.turn === null ? null : `turn ${b.turn}`, `TTFT ${fmtMs(b.ttft_ms)}`, `duration ${(b.end - b.start).toFixed(3)} s`, `tokens ${fmtInt(b.input_tokens)} in / ${fmtInt(b.output_tokens)} out`];
  if (b.status !== "completed") parts.push(b.status);
  if (b.invalid_first) parts.push("first-token timing unusable (after request end)");
  return parts.filter(Boolean).join(" · ");
}

export function renderAxis(state) {
  const axis = clear(document.getElementById("axis"));
  const width = state.to - state.from;
  const digits = width < 1 ? 6 : width < 10 ? 3 : width < 100 ? 2 : 1;
  axis.appendChild(h("div", { class: "axis-label" }, "seconds"));
  const lane = h("div", { class: "axis-lane" });
  for (let i = 0; i <= 5; i++) {
    const t = state.from + (width * i) / 5;
    lane.appendChild(h("span", { class: "tick", style: { left: `${i * 20}%` } }, t.toFixed(digits)));
  }
  lane.appendChild(h("div", { class: "cursor-label", id: "cursorLabel", hidden: true }));
  axis.appendChild(lane);
}
