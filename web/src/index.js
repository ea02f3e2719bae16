// Bundle entry: the chart library is exposed for the metric views, then the
// page boots.
import uPlot from "uplot";
window.uPlot = uPlot;
import "./main.js";
