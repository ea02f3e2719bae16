// DOM helpers. Text from inputs only ever becomes a text node or an
// attribute value: never markup.

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "style") Object.assign(el.style, v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function $(id) {
  return document.getElementById(id);
}

// setText sets el's text only when it differs, and then, when el holds one
// text node, changes that node's data in place: assigning textContent
// replaces the node, which the browser lays out again from scratch.
export function setText(el, text) {
  const t = el.firstChild;
  if (t !== null && t === el.lastChild && t.nodeType === Node.TEXT_NODE) {
    if (t.data !== text) t.data = text;
  } else if (el.textContent !== text) el.textContent = text;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function fmtSeconds(s, width) {
  if (s === null || s === undefined) return "—";
  const digits = width !== undefined && width < 1 ? 6 : width !== undefined && width < 10 ? 3 : 2;
  return `${s.toFixed(digits)} s`;
}

// One formatter each, made once: toLocaleString builds an Intl formatter
// per call, and the first render labels every bar on screen with these
// (its tooltip and its accessible name), several times a bar.
const msFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
const intFormat = new Intl.NumberFormat("en-US");

export function fmtMs(ms) {
  if (ms === null || ms === undefined) return "unknown";
  return `${msFormat.format(ms)} ms`;
}

export function fmtInt(n) {
  if (n === null || n === undefined) return "unknown";
  return intFormat.format(n);
}

export function fmtDuration(s) {
  if (s >= 7200) return `${(s / 3600).toFixed(1)} h`;
  if (s >= 120) return `${(s / 60).toFixed(1)} min`;
  if (s >= 1) return `${s.toFixed(s >= 10 ? 1 : 2)} s`;
  return `${(s * 1000).toFixed(s >= 0.01 ? 1 : 3)} ms`;
}
