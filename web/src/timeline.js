// The client timeline: sessions → agents → requests, one page of sessions at
// a time, drawn from a single engine "timeline" answer.

import { h, clear, setText, fmtMs, fmtSeconds, fmtInt } from "./dom.js";
import { agentKey } from "./state.js";
import { requestLabel } from "./slowrows.js";
import { lanePct } from "./timeaxis.js";

// The rows drawn last time, by key. A key names everything a row shows
// except where its bars sit, so a zoom or pan moves the bars of the rows
// it keeps instead of building them again; a session row no longer shown
// is relabelled for a new session rather than replaced. New elements cost
// their creation, a style resolution and a layout each, which the canvas
// charts drawn next would force at once.
let drawnRows = new Map();

export function renderTimeline(view, page) {
  const { state } = view;
  const host = document.getElementById("clientTracks");
  const x = (t) => lanePct(state, t);
  const wanted = []; // {key, build, move, shape, relabel} or {el} for rows always built
  const place = (key, build, move, shape = null, relabel = null) => wanted.push({ key, build, move, shape, relabel });
  const sink = { appendChild: (el) => wanted.push({ el }) };

  for (const s of page.items) {
    const open = state.expandedSessions.has(s.id);
    const sessionBar = (el) => {
      Object.assign(el.style, { left: `${x(s.start)}%`, width: `${Math.max(x(s.end) - x(s.start), 0.2)}%` });
      el.title = `Session ${s.id}: ${s.matching} request(s) in range, ${fmtSeconds(s.start)} – ${fmtSeconds(s.end)}`;
      return el;
    };
    const sessionCount = (el) => {
      el.style.left = `${x(s.start)}%`;
      setText(el, `${s.matching} req`);
      return el;
    };
    const sessionLabel = (el) => {
      el.dataset.session = s.id;
      const label = `${open ? "Collapse" : "Expand"} session ${s.id}`;
      const [btn, name] = el.firstChild.children;
      btn.setAttribute("aria-label", label);
      btn.title = label;
      name.title = s.id;
      setText(name, s.id);
    };
    place(
      `s\0${s.id}\0${open}`,
      () => {
        const el = row(
          "session-row track",
          [toggle(open, "", () => view.toggleSession(el.dataset.session)), h("span", { class: "name" })],
          [sessionBar(h("div", { class: "session-bar bar session" })), sessionCount(h("span", { class: "session-count" }))],
          {},
        );
        sessionLabel(el);
        return el;
      },
      (el) => {
        const lane = el.lastChild;
        sessionBar(lane.firstChild);
        sessionCount(lane.lastChild);
      },
      `session ${open}`,
      sessionLabel,
    );
    if (!open || !s.agents) continue;
    for (const a of s.agents) {
      const key = agentKey(s.id, a.id);
      const agentOpen = state.expandedAgents.has(key);
      // An agent or request row no longer shown is relabelled for one of
      // the same shape (a fit to a request elsewhere in the run shows other
      // sessions): its handlers read what they act on from the row.
      const agentLabel = (el) => {
        el.dataset.session = s.id;
        el.dataset.agent = a.id;
        const [, btn, kind, name] = el.firstChild.children;
        const label = `${agentOpen ? "Collapse" : "Expand"} agent ${a.id}`;
        btn.setAttribute("aria-label", label);
        btn.title = label;
        setText(kind, a.label);
        name.title = a.id;
        setText(name, a.id);
        setBars(view, el.lastChild, a.bars, x);
      };
      place(
        `a\0${key}\0${agentOpen}\0${a.depth}\0${a.label}\0${a.bars.map((b) => barKey(view, b, x)).join("\0")}`,
        () => {
          const el = row(
            "agent-row track",
            [h("span", { class: "indent" }), toggle(agentOpen, "", () => view.toggleAgent(agentKey(el.dataset.session, el.dataset.agent))), h("span", { class: `agent-kind ${a.depth === 0 ? "main" : "sub"}` }), h("span", { class: "name" })],
            a.bars.map((b) => bar(view, b, x)),
            {},
          );
          agentLabel(el);
          return el;
        },
        (el) => a.bars.forEach((b, i) => moveBar(el.lastChild.children[i], b, x)),
        `agent ${agentOpen} ${a.depth === 0}`,
        agentLabel,
      );
      if (!agentOpen) continue;
      for (const b of a.bars) {
        const expanded = b.lifecycle && state.expandedRequests.has(b.id);
        const requestRowLabel = (el) => {
          el.className = `row request-row track${view.state.request === b.id ? " selected" : ""}`;
          el.dataset.request = b.id;
          const [, btn, turn, name] = el.firstChild.children;
          if (b.lifecycle) {
            const label = `${expanded ? "Collapse" : "Expand"} lifecycle of ${b.id}`;
            btn.setAttribute("aria-label", label);
            btn.title = label;
            btn.dataset.id = b.id;
          }
          setText(turn, b.turn === null ? "turn ?" : `turn ${b.turn}`);
          name.title = b.id;
          setText(name, b.id);
          setBars(view, el.lastChild, [b], x);
        };
        place(
          `r\0${b.id}\0${expanded}\0${!!b.lifecycle}\0${b.turn}\0${barKey(view, b, x)}`,
          () => {
            const el = row(
              "request-row track",
              [
                h("span", { class: "indent2" }),
                b.lifecycle ? toggle(expanded, "", (ev) => view.toggleLifecycle(ev.currentTarget.dataset.id), { toggle: "request" }) : h("span", { class: "toggle-space" }),
                h("span", { class: "turn" }),
                h("span", { class: "name" }),
              ],
              [bar(view, b, x)],
              {},
            );
            requestRowLabel(el);
            return el;
          },
          (el) => moveBar(el.lastChild.firstChild, b, x),
          `request ${expanded} ${!!b.lifecycle}`,
          requestRowLabel,
        );
        if (expanded) renderBreakdown(view, place, b.id, view.request(b.id).lifecycle, x);
      }
    }
  }
  if (page.items.length === 0) {
    sink.appendChild(h("p", { class: "empty" }, state.search ? `No request matches “${state.search}” in this range.` : "No client request overlaps this range."));
  }

  // Rows kept by key first, then rows of the same shape no longer shown
  // are relabelled, then the rest are built.
  const spare = new Map(); // shape → elements drawn last time and not kept
  const keptKeys = new Set(wanted.filter((w) => w.key !== undefined && drawnRows.get(w.key)?.parentNode === host).map((w) => w.key));
  for (const [key, el] of drawnRows) {
    const shape = el.dataset.shape;
    if (keptKeys.has(key) || !shape || el.parentNode !== host) continue;
    if (!spare.has(shape)) spare.set(shape, []);
    spare.get(shape).push(el);
  }
  const kept = new Map();
  const rows = wanted.map((w) => {
    if (w.el) return w.el;
    let el;
    if (keptKeys.has(w.key)) {
      el = drawnRows.get(w.key);
      w.move(el);
    } else if (w.shape && spare.get(w.shape)?.length) {
      el = spare.get(w.shape).shift(); // in their drawn order: moving a row would rebuild its layout
      w.relabel(el);
      w.move(el);
    } else {
      el = w.build(); // placed as built
      if (w.shape) el.dataset.shape = w.shape;
    }
    kept.set(w.key, el);
    return el;
  });
  let cur = host.firstChild;
  for (const el of rows) {
    if (el === cur) cur = cur.nextSibling;
    else host.insertBefore(el, cur);
  }
  while (cur) {
    const next = cur.nextSibling;
    host.removeChild(cur);
    cur = next;
  }
  drawnRows = kept;
}

// renderBreakdown places a request's lifecycle rows in the state's
// lifecycleView: in "milestones", one chain per progress stage showing
// every stage up to it (the current one highlighted) with its duration,
// then the raw activity spans on their own aligned tracks; in
// "activities", the raw activities alone. Each row is keyed by what it
// shows, so a render that keeps the request expanded (another request
// selected, a zoom, a span selected) moves its blocks and marks the
// selected one instead of building the rows again.
function renderBreakdown(view, place, owner, lc, x) {
  const mode = view.state.lifecycleView;
  const at = (el, sp) => {
    Object.assign(el.style, { left: `${x(sp.start)}%`, width: `${Math.max(x(sp.end) - x(sp.start), 0)}%` });
    el.classList.toggle("selected", view.state.span === sp.id);
  };
  const K = `${owner}\0${mode}`;
  place(
    `lh\0${K}\0${lc.timing}`,
    () => breakdownHead(view, mode, lc),
    () => {},
    `head ${mode}`,
    (el) => setText(el.lastChild, lc.timing),
  );
  // A fit to another request shows another request's lifecycle: its rows
  // have the shape of the rows drawn for the one before (a stage row k
  // holds k+1 blocks, an activity row one), so they are relabelled in
  // place rather than built again (renderTimeline's spare rows). The
  // blocks' handlers read the span from the block, so a relabelled block
  // selects its new span.
  const select = (ev) => {
    ev.stopPropagation();
    view.selectSpan(ev.currentTarget.dataset.span);
  };
  if (mode !== "activities")
    lc.stages.forEach((stage, k) => {
      const upTo = lc.stages.slice(0, k + 1);
      const label = `${stage.label} · ${fmtStageMs(stage)}`;
      const mark = (el) => {
        el.dataset.ownerRequest = owner;
        const name = el.firstChild.lastChild;
        name.title = label;
        setText(name, label);
        upTo.forEach((st, j) => {
          const b = el.lastChild.children[j];
          b.title = `${st.label}: ${fmtStageMs(st)} between milestones`;
          b.dataset.stageSpan = st.id;
          b.dataset.span = st.id;
        });
      };
      const move = (el) => upTo.forEach((st, j) => at(el.lastChild.children[j], st));
      place(
        `ls\0${K}\0${k}\0${upTo.map((st) => `${st.id}\0${st.label}\0${fmtStageMs(st)}`).join("\0")}`,
        () => {
          const blocks = upTo.map((st, j) => h("button", { type: "button", class: `stage${j === k ? " current" : ""}`, dataset: { currentStage: String(j === k) }, onclick: select }));
          const el = row("stage-row lifecycle-chain", [h("span", { class: "indent3" }), h("span", { class: "name stage-row-label" })], blocks, { stageRow: String(k), ownerRequest: owner });
          mark(el);
          move(el);
          return el;
        },
        move,
        `stage ${mode} ${k}`,
        mark,
      );
    });
  for (const act of lc.activities) {
    const label = `${"· ".repeat(act.depth)}${act.label} · ${fmtStageMs(act)}`;
    const title = `${act.name} (${act.role}) · ${fmtStageMs(act)}`;
    const mark = (el) => {
      el.dataset.activityRow = act.id;
      el.dataset.ownerRequest = owner;
      const name = el.firstChild.lastChild;
      name.title = title;
      setText(name, label);
      const b = el.lastChild.firstChild;
      b.className = `activity kind-${act.kind}`;
      b.title = `${act.label}: ${((act.end - act.start) * 1000).toFixed(3)} ms recorded`;
      b.dataset.stageSpan = act.id;
      b.dataset.span = act.id;
    };
    place(
      `la\0${K}\0${act.id}\0${act.kind}\0${act.label}\0${label}\0${title}`,
      () => {
        const el = row("activity-row", [h("span", { class: "indent3" }), h("span", { class: "name activity-row-label" })], [h("button", { type: "button", onclick: select })], { activityRow: act.id, ownerRequest: owner });
        mark(el);
        at(el.lastChild.firstChild, act);
        return el;
      },
      (el) => at(el.lastChild.firstChild, act),
      `activity ${mode}`,
      mark,
    );
  }
  if (lc.issues.length) {
    const text = lc.issues.join(" · ");
    place(`li\0${K}\0${text}`, () => h("div", { class: "row breakdown-issues" }, h("div", { class: "row-label" }), h("div", { class: "lane note warn" }, text)), () => {});
  }
}

// breakdownHead is the head row of a request's lifecycle: the view
// switcher and the lifecycle's timing note.
function breakdownHead(view, mode, lc) {
  const switcher = h(
    "span",
    { class: "lifecycle-views" },
    ...[
      ["milestones", "Progress milestones"],
      ["activities", "Activities"],
    ].map(([v, text]) =>
      h(
        "button",
        {
          type: "button",
          class: `lifecycle-view${mode === v ? " current" : ""}`,
          "aria-pressed": String(mode === v),
          dataset: { lifecycleView: v },
          onclick: (ev) => {
            ev.stopPropagation();
            view.state.lifecycleView = v;
            view.render();
          },
        },
        text,
      ),
    ),
  );
  return h("div", { class: "row breakdown-head" }, h("div", { class: "row-label" }, h("span", { class: "indent3" }), "Request breakdown ·", switcher), h("div", { class: "lane note" }, lc.timing));
}

// fmtStageMs is a stage's duration, in milliseconds.
function fmtStageMs(st) {
  return `${((st.end - st.start) * 1000).toFixed(3)} ms`;
}

function row(kind, label, lane, data) {
  return h("div", { class: `row ${kind}`, dataset: data }, h("div", { class: "row-label" }, label), h("div", { class: "lane" }, lane));
}

function toggle(open, label, onClick, dataset) {
  return h("button", { type: "button", class: "toggle", "aria-expanded": open ? "true" : "false", "aria-label": label, title: label, onclick: onClick, dataset }, open ? "▾" : "▸");
}

// barClass is a request bar's class list: everything about it that is not
// its position.
function barClass(view, b) {
  const selected = view.state.request === b.id;
  return ["req", b.status !== "completed" ? `status-${b.status}` : "", selected ? "selected" : "", b.first === null ? "no-first" : "", b.invalid_first ? "invalid-first" : ""].filter(Boolean).join(" ");
}

// hasPhases says whether a bar is split into its TTFT and output parts.
function hasPhases(b, x) {
  return b.first !== null && !b.invalid_first && x(b.end) - x(b.start) > 0;
}

function barKey(view, b, x) {
  return `${b.id} ${barClass(view, b)} ${hasPhases(b, x)}`;
}

function bar(view, b, x) {
  const el = h("button", {
    type: "button",
    class: barClass(view, b),
    "aria-label": requestLabel(b.id, b.end - b.start, b.ttft_ms),
    dataset: { request: b.id },
    onclick: (ev) => {
      ev.stopPropagation();
      if (view.consumeDragClick()) return;
      view.selectRequest(ev.currentTarget.dataset.request);
    },
  });
  if (hasPhases(b, x)) el.append(h("span", { class: "seg ttft" }), h("span", { class: "seg output" }));
  return moveBar(el, b, x);
}

// setBars makes a lane's bars those of bars, keeping each bar whose
// split (hasPhases) is the same and giving it the new request's class and
// names; moveBar places them after.
function setBars(view, lane, bars, x) {
  bars.forEach((b, i) => {
    const el = lane.children[i];
    if (el && !!el.firstChild === hasPhases(b, x)) {
      el.className = barClass(view, b);
      el.setAttribute("aria-label", requestLabel(b.id, b.end - b.start, b.ttft_ms));
      el.dataset.request = b.id;
    } else if (el) lane.replaceChild(bar(view, b, x), el);
    else lane.appendChild(bar(view, b, x));
  });
  while (lane.children.length > bars.length) lane.lastChild.remove();
}

// moveBar places a bar built by bar for the same barKey.
function moveBar(el, b, x) {
  const left = x(b.start);
  const width = Math.max(x(b.end) - left, 0);
  Object.assign(el.style, { left: `${left}%`, width: `${width}%` });
  el.title = tooltip(b);
  if (el.firstChild) {
    const firstPct = ((x(b.first) - left) / width) * 100;
    el.firstChild.style.width = `${Math.min(Math.max(firstPct, 0), 100)}%`;
    el.lastChild.style.width = `${Math.min(Math.max(100 - firstPct, 0), 100)}%`;
  }
  return el;
}

function tooltip(b) {
  const parts = [b.id, b.turn === null ? null : `turn ${b.turn}`, `TTFT ${fmtMs(b.ttft_ms)}`, `latency ${(b.end - b.start).toFixed(3)} s`, `tokens ${fmtInt(b.input_tokens)} in / ${fmtInt(b.output_tokens)} out`];
  if (b.status !== "completed") parts.push(b.status);
  if (b.invalid_first) parts.push("first-token timing unusable (after request end)");
  return parts.filter(Boolean).join(" · ");
}

export function renderAxis(state) {
  const axis = document.getElementById("axis");
  const width = state.to - state.from;
  const digits = width < 1 ? 6 : width < 10 ? 3 : width < 100 ? 2 : 1;
  let ticks = axis.querySelectorAll(".tick");
  if (ticks.length !== 6) {
    clear(axis).appendChild(h("div", { class: "axis-label" }, "seconds"));
    const lane = h("div", { class: "axis-lane" });
    for (let i = 0; i <= 5; i++) lane.appendChild(h("span", { class: "tick", style: { left: `${i * 20}%` } }));
    lane.appendChild(h("div", { class: "cursor-label", id: "cursorLabel", hidden: true }));
    axis.appendChild(lane);
    ticks = axis.querySelectorAll(".tick");
  }
  ticks.forEach((tick, i) => {
    const text = (state.from + (width * i) / 5).toFixed(digits);
    setText(tick, text);
  });
}
