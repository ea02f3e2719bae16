// The page's kept request answers (web/src/keptanswers.js), in Node: an
// answer kept is not asked again, at most the limit are kept, the least
// recently used goes first, a failed question keeps nothing, and clear
// forgets them all.

import { test } from "node:test";
import assert from "node:assert/strict";
import { KeptAnswers, KEPT_ANSWERS } from "../../web/src/keptanswers.js";

test("answers are kept up to the limit, the least recently used going first", () => {
  const asked = [];
  const kept = new KeptAnswers((id) => {
    if (id === "bad") throw new Error("Unknown request bad");
    asked.push(id);
    return { id };
  }, 3);
  for (const id of ["a", "b", "c"]) kept.get(id);
  assert.equal(kept.get("a").id, "a");
  assert.deepEqual(asked, ["a", "b", "c"], "a kept answer is not asked again");
  kept.get("d"); // b is now the least recently used
  assert.equal(kept.size, 3);
  kept.get("a");
  kept.get("c");
  assert.deepEqual(asked, ["a", "b", "c", "d"]);
  kept.get("b");
  assert.deepEqual(asked, ["a", "b", "c", "d", "b"], "the least recently used answer went");
  assert.throws(() => kept.get("bad"), /Unknown request/);
  assert.equal(kept.size, 3, "a failed question keeps nothing");
  kept.clear();
  assert.equal(kept.size, 0);
  kept.get("a");
  assert.equal(asked.at(-1), "a", "after clear every answer is asked again");
});

test("the page keeps a bounded number of answers", () => {
  const kept = new KeptAnswers((id) => ({ id }));
  for (let i = 0; i < KEPT_ANSWERS * 4; i++) kept.get(String(i));
  assert.equal(kept.size, KEPT_ANSWERS);
  assert.ok(KEPT_ANSWERS >= 64 && KEPT_ANSWERS <= 1024, `KEPT_ANSWERS ${KEPT_ANSWERS}`);
});
