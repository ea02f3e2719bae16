// Idle-time rehearsal of a zoom. A page fresh from loading runs its first
// zooms on cold code: engine functions compiled on their first call and
// page functions not yet optimised by the browser. Those zooms took 15–40
// ms where a warm one takes 4–8 ms. So once the page is ready, it runs what
// a zoom runs, ROUNDS times, in idle time: the engine answers questions for
// ranges inside the view (the answers are dropped), and the timeline and
// charts redraw the view they already show, so nothing on screen changes.
// Each round is one short task; any state change stops the rehearsal, since
// the user's own zooms then warm the same code.

const ROUNDS = 40;

// rehearseZooms schedules the rounds for view (app.js View) as it was
// after renders renders: any later render ends the rehearsal. A finished
// rehearsal is marked "dsight:rehearsed" in the page's performance
// timeline.
export function rehearseZooms(view, renders) {
  let round = 0;
  const step = (deadline) => {
    if (view.renders !== renders) return;
    // A round takes a few ms: wait for an idle period with room for it.
    if (deadline && !deadline.didTimeout && deadline.timeRemaining() < 10) {
      idle(step);
      return;
    }
    if (round >= ROUNDS) {
      performance.mark("dsight:rehearsed");
      return;
    }
    // The rounds look at nested ranges, as zooms in would.
    const s = view.state;
    const w = (s.to - s.from) / 2 ** (1 + (round % 4));
    const from = s.from + ((round * 0.37) % 1) * (s.to - s.from - w);
    view.rehearse(from, from + w);
    round++;
    idle(step);
  };
  idle(step);
}

function idle(fn) {
  if (typeof requestIdleCallback === "function") requestIdleCallback(fn, { timeout: 500 });
  else setTimeout(fn, 16);
}
