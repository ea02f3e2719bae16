// Bundle entry: the chart library is exposed for the metric views, then the
// page boots (imports run first, so main.js waits to be started).
import "./scriptstart.js";
import uPlot from "uplot";
import { start } from "./main.js";

window.uPlot = uPlot;
start();
