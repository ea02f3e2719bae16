// Idle-time rehearsal of an exact Nsight zoom (rehearse.js does the same
// for the timeline and charts). The first zooms from the density to the
// exact ranges ran on cold code: the engine's exact view, the header's
// decoding, the lane labels' morph and the canvas drawing compiled and
// optimised during them. Once the Nsight tracks are drawn, idle time asks
// the engine for exact windows inside the shown one, from the chunks it
// already holds (a window needing a shard is skipped: the rehearsal never
// loads one), and draws each into a block that is not in the document, so
// nothing on screen changes. Any render stops it; the next resumes it
// until ROUNDS have run for the page, marked "dsight:nsight-rehearsed".

import { askBytes } from "./engine.js";
import { decodeView } from "./nsightdata.js";

const ROUNDS = 12;
// Windows tried in one idle period before waiting for the next (the
// prefetch may hold more chunks by then).
const TRIES = 4;

// rehearseNsight schedules the rounds for section (nsightview.js
// NsightSection) as drawn by render number gen.
export function rehearseNsight(section, gen) {
  const r = section.rehearsal;
  if (r.done >= ROUNDS) return;
  let idleRounds = 0;
  const step = (deadline) => {
    if (section.renders !== gen) return;
    if (deadline && !deadline.didTimeout && deadline.timeRemaining() < 10) return idle(step);
    let drew = false;
    for (let k = 0; k < TRIES && !drew; k++) drew = rehearseOnce(section, r.tried++);
    if (drew) r.done++;
    else if (++idleRounds > 50) return; // nothing held to draw: the next render tries again
    if (r.done >= ROUNDS) {
      r.block = null; // its canvas's pixels go
      r.buffer = null;
      performance.mark("dsight:nsight-rehearsed");
      return;
    }
    idle(step);
  };
  idle(step);
}

// rehearseOnce draws one exact window of the first shown profile off
// screen; false when its chunks are not all held or it is not exact.
function rehearseOnce(section, round) {
  const p = section.chosen()[0];
  const v = p && section.views.get(p.id);
  if (!v) return false;
  const s = section.view.state;
  const span = s.to - s.from;
  // A window whose chunks hold under the exact threshold, by the shown
  // one's estimate, at a different place each round.
  const h = v.header;
  const width = h.mode === "exact" ? span / 2 : span * Math.min(0.5, (0.3 * h.threshold) / Math.max(h.estimate, 1));
  const from = s.from + ((round * 0.618) % 1) * (span - width);
  let bytes;
  try {
    bytes = askBytes("nsys_view", { profile: p.id, from, to: from + width }, section.rehearsal.buffer);
  } catch (err) {
    if (err.code === "shards_needed") return false;
    throw err;
  }
  const got = decodeView(bytes);
  section.rehearsal.buffer = got.buffer;
  if (got.header.mode !== "exact") return false;
  section.rehearseDraw(p, got);
  return true;
}

function idle(fn) {
  if (typeof requestIdleCallback === "function") requestIdleCallback(fn, { timeout: 500 });
  else setTimeout(fn, 16);
}
