/* The rack's hover labels (rack.labels, at the end), and a press on the rack, told apart from a double-click (plotly's reset-zoom gesture).

plotly.js reports the first click of a double-click as a click (clickData), and a second
press could land on another cable once the first has redrawn the rack. So a click becomes a
press (the store rack-press, which the server's callbacks read) only when the double-click
window (the graph's doubleClickDelay) after its mousedown has closed without a second one.
The browser counts the clicks (a mousedown's detail) and stamps them (its timeStamp), so a
busy page that runs this late still tells a double-click from two clicks. */
(function () {
  let down = -Infinity;  // the last first mousedown on the rack
  let doubled = -Infinity;  // the last second (or later) one
  document.addEventListener(
    "mousedown",
    function (e) {
      if (!(e.target.closest && e.target.closest("#rack"))) return;
      if (e.detail >= 2) doubled = e.timeStamp;
      else down = e.timeStamp;
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
      const start = Number.isFinite(down) ? down : performance.now();
      const p = click.points[0];
      const point = { curveNumber: p.curveNumber, pointNumber: p.pointNumber };
      const wait = Math.max(0, start + delay - performance.now());
      setTimeout(function () {
        if (doubled >= start) return;  // a second click came: it was a double-click
        window.dash_clientside.set_props("rack-press", { data: { points: [point], at: start } });
      }, wait);
      return [none];
    },
    /* The hover labels, spelled out from the server's compact codes (label_data in
    dashboard/figures/rack/overlay.py) and patched into the figure. */
    labels: function (d) {
      const none = window.dash_clientside.no_update;
      if (!d || !d.codes) return [none];
      const out = new Array(d.codes.length);
      for (let i = 0; i < out.length; i++) out[i] = d.words[d.codes.charCodeAt(i) - 48];
      for (const i in d.named) out[+i] = d.named[i];
      const patch = new window.dash_clientside.Patch();
      patch.assign(["data", d.hits, "hovertext"], out);
      for (const t in d.parts) patch.assign(["data", +t, "hovertext"], d.parts[t]);
      return [patch.build()];
    },
  };
})();
