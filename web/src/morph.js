// morph brings a box's children in line with freshly built nodes while
// keeping every existing node that already matches: an element whose tag
// and attributes are the same is kept and its children morphed, a text
// node whose text changed gets the new text in place. Only what differs
// is replaced, so the frame after a zoom styles and lays out the few
// numbers that changed instead of the whole panel.
//
// A kept element keeps its own event listeners: use it only where equal
// elements built for the same view carry equivalent handlers (handlers
// that read the view's state when they run).

export function morph(box, nodes) {
  let i = 0;
  for (; i < nodes.length; i++) {
    const old = box.childNodes[i];
    const n = nodes[i];
    if (!old) box.appendChild(n);
    else if (!morphNode(old, n)) box.replaceChild(n, old);
  }
  while (box.childNodes.length > i) box.removeChild(box.lastChild);
}

// morphNode makes old equal to n in place and says whether it could.
function morphNode(old, n) {
  if (old.nodeType !== n.nodeType || old.nodeName !== n.nodeName) return false;
  if (n.nodeType === Node.TEXT_NODE) {
    if (old.data !== n.data) old.data = n.data;
    return true;
  }
  if (n.nodeType !== Node.ELEMENT_NODE || !sameAttributes(old, n)) return false;
  // A select's chosen option is state the user changes, not an attribute:
  // it is kept only when entirely equal.
  if (n.nodeName === "SELECT") return old.isEqualNode(n);
  morph(old, [...n.childNodes]);
  return true;
}

function sameAttributes(a, b) {
  if (a.attributes.length !== b.attributes.length) return false;
  for (const at of b.attributes) if (a.getAttribute(at.name) !== at.value) return false;
  return true;
}
