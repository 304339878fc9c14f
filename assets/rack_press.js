/* The rack's hover labels (rack.labels, at the end), and a press on the rack, told apart from a double-click (plotly's reset-zoom gesture).

A click on the rack is a press at once (the store rack-press, which the server's callbacks
read), so the cards follow in the time the server takes. If it turns out to be the first
click of a double-click (a second mousedown within the graph's doubleClickDelay; the browser
counts the clicks in a mousedown's detail and stamps them), the press is taken back: once its
new scenario has landed in the URL, the URL's query returns to what it was before the press.
A double-click so quick that its second mousedown comes before the press is handled sends no
press at all. The second click itself is never a press (it could land on another cable once
the first has redrawn the rack). */
(function () {
  let down = -Infinity;  // the last first mousedown on the rack
  let doubled = -Infinity;  // the last second (or later) one
  let last = null;  // the last press sent: {at, before: the URL's query before it}

  function delay() {
    const gd = document.querySelector("#rack .js-plotly-plot");
    return (gd && gd._context && gd._context.doubleClickDelay) || 300;
  }

  function undo(press) {
    // wait for the press's scenario to land in the URL, then put the query back
    const until = performance.now() + 5000;
    const timer = setInterval(function () {
      if (window.location.search !== press.before) {
        clearInterval(timer);
        window.dash_clientside.set_props("url", { search: press.before });
      } else if (performance.now() > until) {
        clearInterval(timer);  // the press changed no query (an inspect): nothing to undo
      }
    }, 20);
  }

  document.addEventListener(
    "mousedown",
    function (e) {
      if (!(e.target.closest && e.target.closest("#rack"))) return;
      if (e.detail >= 2) {
        doubled = e.timeStamp;
        if (last && !last.undone && e.timeStamp - last.at <= delay()) {
          last.undone = true;
          undo(last);
        }
      } else down = e.timeStamp;
    },
    true
  );
  window.dash_clientside = window.dash_clientside || {};
  window.dash_clientside.rack = {
    press: function (click) {
      const none = window.dash_clientside.no_update;  // one output, as a list
      if (!click || !click.points || !click.points.length) return [none];
      const start = Number.isFinite(down) ? down : performance.now();
      if (doubled >= start) return [none];  // a double-click already: no press
      const p = click.points[0];
      last = { at: start, before: window.location.search, undone: false };
      return [{ points: [{ curveNumber: p.curveNumber, pointNumber: p.pointNumber }], at: start }];
    },
    /* The hover labels, spelled out from the server's compact codes (label_data in
    dashboard/figures/rack/overlay.py) and patched into the figure.

    A front-view part's label is what it is (its trace's meta.hover, in the base figure),
    then its state and what a click does. The names are read from `fig`, the figure Dash
    holds (a State of this callback), which the same server response that sent these codes
    has already set: never from the drawn plot in the page, which lags it (until plotly.js
    has loaded and drawn, or after a change of fabric, it holds no names or another
    fabric's). A trace whose names do not match the codes in number keeps its text. */
    labels: function (d, fig) {
      const none = window.dash_clientside.no_update;
      if (!d || !d.codes || !fig || !fig.data) return [none];
      const out = new Array(d.codes.length);
      for (let i = 0; i < out.length; i++) out[i] = d.words[d.codes.charCodeAt(i) - 48];
      for (const i in d.named) out[+i] = d.named[i];
      const patch = new window.dash_clientside.Patch();
      patch.assign(["data", d.hits, "hovertext"], out);
      for (const t in d.parts) {
        const p = d.parts[t];
        const trace = fig.data[+t];
        const base = trace && trace.meta && trace.meta.hover;
        if (!base || base.length !== p.codes.length) continue;
        const text = new Array(base.length);
        for (let i = 0; i < text.length; i++) {
          text[i] = base[i] + "<br>" + p.words[p.codes.charCodeAt(i) - 48];
        }
        patch.assign(["data", +t, "hovertext"], text);
      }
      return [patch.build()];
    },
  };
})();
