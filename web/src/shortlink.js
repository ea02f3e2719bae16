// "Copy short link", shown only when the page is served by the edge under
// /r/<report-id>/ (internal/edge). The page's Content-Security-Policy allows
// no fetch and no form, so the button navigates to the edge's minting
// address ../../v/?report=…&view=… with the current view's fragment; the
// edge stores only (report, fragment) under a content-derived id and shows
// the short link to copy. The view state itself stays in the fragment.

import { $ } from "./dom.js";
import { snapshot } from "./state.js";

const EDGE_PATH = /\/r\/([0-9a-f]{24})\/(?:index\.html)?$/;

// edgeReportID is the report id in the page's address, or null when the
// page is not served by the edge (file://, a plain static host).
export function edgeReportID(loc = location) {
  if (loc.protocol !== "http:" && loc.protocol !== "https:") return null;
  const m = EDGE_PATH.exec(loc.pathname);
  return m ? m[1] : null;
}

export function wireShortLink(view, guard) {
  const id = edgeReportID();
  const button = $("copyShortLink");
  if (!id || !button) return;
  button.hidden = false;
  button.addEventListener(
    "click",
    guard(() => {
      const fragment = `#view=${encodeURIComponent(JSON.stringify(snapshot(view.state)))}`;
      location.assign(`../../v/?report=${id}&view=${encodeURIComponent(fragment)}`);
    }),
  );
}
