// Nsight detail data: the engine names the detail shards an answer needs
// (code shards_needed); they are fetched as detail scripts, handed over,
// and the question asked again. The engine keeps them in its own cache,
// bounded by decoded bytes (detail_cache; detailDataStatus()).

import { ask, loadShard as give } from "./engine.js";
import { loadShard as fetchShard } from "./loader.js";

// Each round loads every shard the answer named, so two rounds suffice;
// a third covers a shard dropped by a concurrent question.
const ROUNDS = 3;

export async function askDetail(op, args) {
  for (let round = 1; ; round++) {
    try {
      return ask(op, args);
    } catch (err) {
      if (round >= ROUNDS || err.code !== "shards_needed") throw err;
      const bytes = await Promise.all(err.shards.map((d) => fetchShard(d)));
      err.shards.forEach((d, k) => give(d.id, bytes[k]));
    }
  }
}

// browserNsys renames the CLI's global_tid to the browser API's globalTid
// (reference §8 and §10 spell it differently); the value stays a decimal
// string, since Nsight's packed ids exceed 2^53.
export function browserNsys(answer) {
  answer.items = answer.items.map(({ global_tid, ...rest }) => ({ ...rest, globalTid: global_tid }));
  return answer;
}

export function detailDataStatus() {
  return ask("detail_cache", {});
}
