/* A press on the rack, told apart from a double-click (plotly's reset-zoom gesture).

plotly.js reports both clicks of a double-click as clicks (clickData), and the second can land
on another cable once the first has redrawn the rack. So a click becomes a press (the store
rack-press, which the server's callbacks read) only when the double-click window
(the graph's doubleClickDelay) has closed without a second click; the second click of a
double-click cancels the first, and neither fails or repairs anything. */
(function () {
  let seq = 0;
  let last = -Infinity;
  let doubled = -Infinity;
  // plotly.js may report only the first click of a double-click: the browser's own click
  // count (a mousedown's detail) names the second, before plotly.js sees it.
  document.addEventListener(
    "mousedown",
    function (e) {
      if (e.detail >= 2 && e.target.closest && e.target.closest("#rack")) {
        doubled = performance.now();
        seq++;  // the first click's press, still waiting, will not happen
      }
    },
    true
  );
  window.dash_clientside = window.dash_clientside || {};
  window.dash_clientside.rack = {
    press: function (click) {
      const none = window.dash_clientside.no_update;  // one output, as a list
      if (!click || !click.points || !click.points.length) return [none];
      const gd = document.querySelector("#rack .js-plotly-plot");
      const delay = (gd && gd._context && gd._context.doubleClickDelay) || 300;
      const now = performance.now();
      if (now - last < delay || now - doubled < delay) {  // a double-click's second click
        last = -Infinity;
        seq++;
        return [none];
      }
      last = now;
      const mine = ++seq;
      const p = click.points[0];
      const point = { curveNumber: p.curveNumber, pointNumber: p.pointNumber };
      setTimeout(function () {
        if (seq !== mine) return;  // a second click came: it was a double-click
        window.dash_clientside.set_props("rack-press", { data: { points: [point], n: mine } });
      }, delay);
      return [none];
    },
  };
})();
