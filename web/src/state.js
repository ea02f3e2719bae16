// The view state: one plain object, validated on every change, serialisable
// to the URL fragment, with a history of committed ranges.

export const PAGE_SIZE = 7;
const RANGE_SLACK = 1e-6;

export function createState(duration) {
  return {
    from: 0,
    to: duration,
    request: null,
    span: null,
    tab: "request",
    page: 0,
    pageSize: PAGE_SIZE,
    search: "",
    sort: "ttft",
    cursor: null,
    expandedSessions: new Set(),
    expandedAgents: new Set(),
    expandedRequests: new Set(),
    nsys: false,
    profile: null,
    metricCharts: {},
    pinnedMetrics: [],
    hardware: false,
    compareNsys: false,
    metric: null,
    lifecycleView: "milestones",
  };
}

export function snapshot(s) {
  return {
    from: s.from,
    to: s.to,
    request: s.request,
    span: s.span,
    tab: s.tab,
    page: s.page,
    pageSize: s.pageSize,
    search: s.search,
    sort: s.sort,
    cursor: s.cursor,
    expandedSessions: [...s.expandedSessions],
    expandedAgents: [...s.expandedAgents],
    expandedRequests: [...s.expandedRequests],
    nsys: s.nsys,
    profile: s.profile,
    metricCharts: JSON.parse(JSON.stringify(s.metricCharts)),
    pinnedMetrics: [...s.pinnedMetrics],
    hardware: s.hardware,
    compareNsys: s.compareNsys,
    metric: s.metric,
    lifecycleView: s.lifecycleView,
  };
}

export function checkRange(from, to, duration) {
  if (typeof from !== "number" || typeof to !== "number" || !Number.isFinite(from) || !Number.isFinite(to) || from < 0 || from >= to || to > duration + RANGE_SLACK) {
    throw new Error(`Range must satisfy 0 ≤ from < to ≤ duration (${duration} s); got from=${from}, to=${to}`);
  }
  return [from, Math.min(to, duration)];
}

// LIFECYCLE_VIEWS are the ways an expanded request's lifecycle is drawn:
// cumulative milestone chains, or one row per raw activity.
export const LIFECYCLE_VIEWS = ["milestones", "activities"];

export function agentKey(session, agent) {
  return JSON.stringify([session, agent]);
}

// fitRange pads [start, end] by max(6 % of its width, 10 µs), clamped to the run.
export function fitRange(start, end, duration) {
  const pad = Math.max((end - start) * 0.06, 1e-5);
  const from = Math.max(0, start - pad);
  const to = Math.min(duration, end + pad);
  return to > from ? [from, to] : [0, duration];
}
