/* The page's own hovers (the keyboard's, a view's mirror of the other's, a relabel after a
redraw) spaced ~60 ms apart per plot, on this file's timer.

Plotly hovers a plot at most once in 50 ms and defers a call inside that on a timer, and any
plot's first draw cancels every such timer on the page (its purge clears all throttles). A
hover asked for while a chart below was first drawn was then lost: an arrow key named
nothing and the label stayed on the part before. Spaced here, plotly never defers them.
The latest call for a plot wins; one waiting is replaced, or dropped by an unhover
(spacedHover.cancel). */
(function () {
  const SPACING_MS = 60;
  const last = new WeakMap(); // plot -> {at, timer}

  /* Run fn (which hovers gd) now, or once SPACING_MS has passed since the last one run. */
  window.spacedHover = function (gd, fn) {
    const l = last.get(gd) || { at: -Infinity, timer: null };
    clearTimeout(l.timer);
    const wait = l.at + SPACING_MS - performance.now();
    function go() {
      last.set(gd, { at: performance.now(), timer: null });
      fn();
    }
    if (wait <= 0) go();
    else last.set(gd, { at: l.at, timer: setTimeout(go, wait) });
  };
  /* Run fn now, whatever is waiting (dropped): a pointer's hover, asked inside plotly's own
  hover of that plot, which plotly runs at once, and which must not wait: plotly's unhover
  (a pointer leaving a drag box) cancels a hover it has deferred. Later ones space from it. */
  window.spacedHover.now = function (gd, fn) {
    window.spacedHover.cancel(gd);
    last.set(gd, { at: performance.now(), timer: null });
    fn();
  };
  /* Drop a hover still waiting for gd (the pointer left, or the other view unhovered). */
  window.spacedHover.cancel = function (gd) {
    const l = last.get(gd);
    if (l) clearTimeout(l.timer);
  };
})();
