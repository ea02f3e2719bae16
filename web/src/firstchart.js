// The chart a report opens on, drawn before the engine has loaded. The
// engine (a few MB of wasm) and the core shard take one to two seconds to
// load and decode on a large run; the report writer answered this one chart's
// questions while writing the report, with the same engine
// (internal/report/firstchart.go), and put the answers in index.html. The
// page draws them at once, then adopts the card: once the engine is up,
// the chart asks again at its own width and redraws in place. Until then
// it shows and hovers, but does not zoom or toggle series.
//
// Only a page opened on its default view draws early: a view link may ask
// for any family, range or legend.

import { decodePlot } from "./metricplot.js";
import { base64ToBytes } from "./loader.js";
import { FIRST_SERIES, metricsSection, newCard, familyHeading, chartWidth, markFirstChart } from "./metricview.js";
import "./metricchart.js";

// drawFirstChart draws record (the boot record's first_chart) and returns
// {name, card} for the metrics section to adopt, or null when the page
// does not open on its default view, the report has no first chart, or it
// could not be drawn.
export function drawFirstChart(record) {
  if (!record || /^#view=/.test(location.hash)) return null;
  try {
    return draw(record);
  } catch (err) {
    // Drawing early is a head start, never a condition: the page draws
    // the chart again from the engine.
    document.getElementById("metrics")?.remove();
    console.warn("dsight: the first chart could not be drawn early:", err);
    return null;
  }
}

function draw(record) {
  const f = record.family;
  const plot = decodePlot(base64ToBytes(record.plot));
  const section = metricsSection();
  const card = newCard(f.name);
  card.head.append(...familyHeading(f));
  section.querySelector("#metricCards").appendChild(card.el);
  card.width = chartWidth(card.panel);
  const idle = () => {};
  card.chart = window.DSightMetricCharts.mount(card.panel, {
    from: plot.from,
    to: plot.to,
    unit: f.unit,
    items: record.series,
    plot: plot.series,
    hidden: new Set(record.series.slice(FIRST_SERIES).map((s) => String(s.id))),
    firstN: FIRST_SERIES,
    onSelect: idle,
    onToggle: idle,
    onShowAll: idle,
    onShowFirst: idle,
  });
  markFirstChart();
  return { name: f.name, card };
}
