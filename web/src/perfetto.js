// "Download Perfetto": the whole report as a Perfetto trace (.pftrace),
// written by the engine's perfetto op (internal/query), the same code and
// so the same bytes as `dsight export perfetto REPORT -o FILE`. The engine
// names the metric and NVTX shards it needs; they are fetched as detail
// scripts, handed over, and the question asked again. Built on demand,
// not at report build time: a report carries no second copy of its
// evidence, and the export costs nothing until asked for.

import { $, h } from "./dom.js";
import { askBinary, loadShard as give } from "./engine.js";
import { loadShard as fetchShard } from "./loader.js";

// Each round loads every shard the answer named, so two rounds suffice;
// a third covers a shard dropped meanwhile by another question.
const ROUNDS = 3;

// perfettoBytes resolves to the trace's bytes (a Uint8Array).
export async function perfettoBytes() {
  for (let round = 1; ; round++) {
    const r = askBinary("perfetto", {});
    if (!r.shards) return r;
    if (round >= ROUNDS) throw new Error("the Perfetto export still lacks shards after loading them; reload the page");
    const bytes = await Promise.all(r.shards.map((d) => fetchShard(d)));
    r.shards.forEach((d, k) => give(d.id, bytes[k]));
  }
}

// wirePerfetto adds the button after "Export selection".
export function wirePerfetto(view, guard) {
  const anchor = $("exportSelection");
  if (!anchor) return;
  const label = "Download Perfetto";
  const button = h("button", { id: "downloadPerfetto", type: "button", title: "The whole run as a .pftrace for ui.perfetto.dev or Trace Processor" }, label);
  anchor.after(button);
  const fail = (err) => guard(() => { throw err; })();
  button.addEventListener(
    "click",
    guard(() => {
      button.disabled = true;
      button.textContent = "Building Perfetto trace…";
      // Let the label paint before the engine works synchronously.
      setTimeout(() => {
        perfettoBytes()
          .then((bytes) => save(bytes, `${view.summary.meta.job}.pftrace`))
          .catch(fail)
          .finally(() => {
            button.disabled = false;
            button.textContent = label;
          });
      }, 0);
    }),
  );
}

function save(bytes, name) {
  const a = h("a", { href: URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" })), download: name });
  document.body.appendChild(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(a.href);
    a.remove();
  }, 0);
}
