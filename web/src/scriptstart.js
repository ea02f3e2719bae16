// Marks the moment the page's own script starts running (dsight:script),
// before any other module of the bundle is evaluated: index.js imports
// it first. With the navigation's own timing (the HTML received, the
// first paint) it splits the wait before dsight:boot into the browser's
// share (navigation, parsing the template, compiling the script) and
// ours (evaluating the bundle's modules and reading the boot record).

performance.mark("dsight:script");
