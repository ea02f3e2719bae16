// The request answers the page keeps. A render draws the selected and the
// expanded requests again and again, so the page keeps each answer it
// asked for, with its text to hand callers copies (engine.js askKept).
// Kept without bound, a script walking a traced run's requests through
// getRequest would hold every one: ~45 KB of text and its parsed value
// each, gigabytes at 100,000 requests (issue 17). So the least recently
// used answer goes once more than a limit are kept; one asked for again
// is asked of the engine again.

// KEPT_ANSWERS is how many answers the page keeps.
export const KEPT_ANSWERS = 256;

export class KeptAnswers {
  // ask(id) answers id's question (it may throw: nothing is kept then).
  constructor(ask, limit = KEPT_ANSWERS) {
    this.ask = ask;
    this.limit = limit;
    this.kept = new Map(); // id → answer, least recently used first
  }

  // get is id's answer, kept or asked now.
  get(id) {
    let a = this.kept.get(id);
    if (a !== undefined) {
      this.kept.delete(id);
    } else {
      a = this.ask(id);
      if (this.kept.size >= this.limit) this.kept.delete(this.kept.keys().next().value);
    }
    this.kept.set(id, a);
    return a;
  }

  get size() {
    return this.kept.size;
  }

  // clear forgets every answer (answers made while the evidence loaded
  // may say it was pending).
  clear() {
    this.kept.clear();
  }
}
