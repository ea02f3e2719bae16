// The worker's entry: syumai/workers' worker.mjs runs the Go handler; a
// response the handler already compressed (it says so with
// Content-Encoding) is sent with encodeBody "manual", so the runtime passes
// the stored gzip bytes through instead of compressing them again.
import worker from "./worker.mjs";

export default {
  async fetch(req, env, ctx) {
    const res = await worker.fetch(req, env, ctx);
    if (!res.headers.has("content-encoding")) return res;
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers: res.headers, encodeBody: "manual" });
  },
};
