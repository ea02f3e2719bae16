// The chart path's answer, decoded: the engine lays a plot out as
// little-endian float64s (internal/query.Plot.Encode, which documents the
// layout) and the page reads it through a Float64Array without parsing or
// copying any point. Unknown numbers are NaN there and null here, except in
// the point columns, where NaN is a gap.

const HEADER = 4;
const FIELDS = 26;
const VERSION = 1;
const TEMPORAL = ["sample", "event", "setting"];
const LIMIT = ["unavailable", "constant", "changed"];

// Flag bits, as internal/query's Plot* constants.
export const EXACT = 1;
export const EVENT_MEDIANS = 2;
const CARRIED = 4;
const CAPACITY = 8;
const CARRIED_CONFLICT = 16;

const num = (x) => (Number.isNaN(x) ? null : x);
const pair = (t, v) => (Number.isNaN(t) ? null : [t, num(v)]);

// decodePlot turns the engine's bytes into {from, to, series: Map id →
// series}. A series: {id, temporal, exact, medians, bucket_seconds,
// points_total, samples, min, max, mean, last, last_count, first_time,
// last_time, carried_setting, carried_values (every value recorded at the
// carried setting's time when they conflict, null for a null; else null),
// capacity (the "metrics" answer's shape) or null, times, values, counts
// (Float64Arrays; counts only with medians)}.
export function decodePlot(bytes) {
  if (bytes.byteLength % 8 !== 0) throw new Error(`metric plot: ${bytes.byteLength} bytes is not a whole number of float64s`);
  const f = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
  if (f.length < HEADER || f[0] !== VERSION) throw new Error("metric plot: unknown layout");
  const count = f[1];
  const series = new Map();
  let at = HEADER;
  for (let k = 0; k < count; k++) {
    if (at + FIELDS > f.length) throw new Error("metric plot: truncated");
    const r = f.subarray(at, at + FIELDS);
    const flags = r[2];
    const n = r[25];
    const cols = flags & EVENT_MEDIANS ? 3 : 2;
    const start = at + FIELDS;
    if (start + cols * n > f.length) throw new Error("metric plot: truncated");
    let next = start + cols * n;
    let carriedValues = null;
    if (flags & CARRIED_CONFLICT) {
      const m = f[next];
      if (!(m >= 0) || next + 1 + m > f.length) throw new Error("metric plot: truncated");
      carriedValues = Array.from(f.subarray(next + 1, next + 1 + m), num);
      next += 1 + m;
    }
    const s = {
      id: r[0],
      temporal: TEMPORAL[r[1]] ?? "sample",
      exact: !!(flags & EXACT),
      medians: !!(flags & EVENT_MEDIANS),
      bucket_seconds: num(r[3]),
      points_total: r[4],
      samples: r[5],
      min: num(r[6]),
      max: num(r[7]),
      mean: num(r[8]),
      last: num(r[9]),
      first_time: num(r[10]),
      last_time: num(r[11]),
      last_count: num(r[12]),
      carried_setting: flags & CARRIED ? pair(r[13], r[14]) : null,
      carried_values: carriedValues,
      capacity: flags & CAPACITY ? capacity(r) : null,
      times: f.subarray(start, start + n),
      values: f.subarray(start + n, start + 2 * n),
      counts: cols === 3 ? f.subarray(start + 2 * n, start + 3 * n) : null,
    };
    series.set(s.id, s);
    at = next;
  }
  return { from: f[2], to: f[3], series };
}

function capacity(r) {
  return {
    reference_series_id: num(r[24]),
    samples: r[15],
    unavailable: r[16],
    peak: pair(r[17], r[18]),
    limit: LIMIT[r[19]] ?? "unavailable",
    limit_min: num(r[20]),
    limit_max: num(r[21]),
    highest_usage: pair(r[22], r[23]),
  };
}
