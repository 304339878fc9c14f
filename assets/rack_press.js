/* The rack's hover labels (rack.compose, at the end), and a press on the rack, told apart from a double-click (plotly's reset-zoom gesture).

A click on the rack is a press at once (the store rack-press, which the server's callbacks
read), so the cards follow in the time the server takes. If it turns out to be the first
click of a double-click (a second mousedown the browser counts as one: its detail is 2 or
more, by the system's double-click interval and distance), the press is taken back: once its
new scenario has landed in the URL, the URL's query returns to what it was before the press.
A double-click so quick that its second mousedown comes before the press is handled sends no
press at all. The second click itself is never a press (it could land on another cable once
the first has redrawn the rack). */
(function () {
  let down = -Infinity;  // the last first mousedown on the rack
  let downAt = null;  // where it was, on the drawing: {x, y} (page), or null on the map
  let doubled = -Infinity;  // the last second (or later) one
  let last = null;  // the last press sent: {at, before: the URL's query before it}

  /* Take a press back: wait for the server's answer to it (rack-pressed holds its `at`: the
  response that set its URL), then put the query back as it was before it, if it changed.
  A URL changed by anything else (a later press) is never mistaken for this press's. Later
  presses wait until the query is back (answered(), below). */
  let undoing = null;  // the press being taken back
  function undo(press) {
    const until = performance.now() + 5000;
    undoing = press;
    const timer = setInterval(function () {
      const el = document.getElementById("rack-pressed");
      const landed = el && el.textContent === String(press.at);
      if (!landed && performance.now() <= until) return;
      clearInterval(timer);
      if (!landed || window.location.search === press.before) {
        undoing = null;  // never answered in time, or it changed no query (an inspect)
        return;
      }
      window.dash_clientside.set_props("url", { search: press.before });
      const back = setInterval(function () {
        if (window.location.search === press.before || performance.now() > until + 5000) {
          clearInterval(back);
          undoing = null;
        }
      }, 20);
    }, 20);
  }

  document.addEventListener(
    "mousedown",
    function (e) {
      if (!(e.target.closest && e.target.closest("#rack, #cable-map"))) return;
      if (e.detail >= 2) {
        // the browser counted this click as the second of a double-click (its own interval
        // and distance): the press its first click made, if any, is taken back, however long
        // the first click's press took to go out
        doubled = e.timeStamp;
        const waiting = queue.findIndex(function (q) { return q.at === down; });
        if (waiting >= 0) {
          queue.splice(waiting, 1);  // not sent yet: dropped
        } else if (last && !last.undone && last.at === down) {
          last.undone = true;
          undo(last);
        }
      } else {
        down = e.timeStamp;
        downAt = e.target.closest("#rack") ? { x: e.clientX, y: e.clientY } : null;
      }
    },
    true
  );
  /* Presses go to the server one at a time. The server computes a press from the URL's
  scenario as the request carries it; a second press sent while the first is in flight would
  start from the scenario before the first, and its answer replace the first's (a press lost,
  seen under load). So a press waits until the server has answered the one before it (it says
  so by name: rack-pressed holds that press's `at`, set by the response that set its URL), or
  5 s at most; presses made meanwhile are kept in order and sent then. */
  const WAIT_MS = 5000;
  let inFlight = null;  // the press sent and not yet answered: {at, since}
  const queue = [];
  function answered() {
    if (undoing) return false;  // a press being taken back: the next starts from its query
    const el = document.getElementById("rack-pressed");
    return !inFlight || (el && el.textContent === String(inFlight.at)) ||
      performance.now() - inFlight.since > WAIT_MS;
  }
  function pump() {
    if (!answered()) return setTimeout(pump, 15);
    inFlight = null;
    const next = queue.shift();
    if (!next) return;
    send(next);
    if (queue.length) setTimeout(pump, 15);
  }
  function send(data) {
    inFlight = { at: data.at, since: performance.now() };
    last = { at: data.at, before: window.location.search, undone: false };
    window.dash_clientside.set_props("rack-press", { data: data });
    setTimeout(pump, 15);
  }
  /* A press (from the drawing, the map or the keyboard): sent now if none is in flight, else
  queued; `data` is {points: [{curveNumber, pointNumber}], at}. Returns true if sent now. */
  function enqueue(data) {
    if (answered() && !queue.length) {
      inFlight = { at: data.at, since: performance.now() };
      last = { at: data.at, before: window.location.search, undone: false };
      setTimeout(pump, 15);
      return true;
    }
    queue.push(data);
    setTimeout(pump, 15);
    return false;
  }
  window.rackPress = function (data) {  // the keyboard's presses (assets/present.js)
    if (enqueue(data)) window.dash_clientside.set_props("rack-press", { data: data });
  };

  /* A press of one point (the drawing's or the map's), as the one output of a clientside
  callback (a list): sent if none is in flight, queued otherwise, nothing if it is the first
  click of a double-click already seen. */
  function pressed(point) {
    const none = window.dash_clientside.no_update;
    const start = Number.isFinite(down) ? down : performance.now();
    if (doubled >= start) return [none];  // a double-click already: no press
    const data = { points: [point], at: start };
    return [enqueue(data) ? data : none];
  }

  window.dash_clientside = window.dash_clientside || {};
  window.dash_clientside.rack = {
    /* A click on the drawing. On the spine, the cable pressed is the one nearest where the
    mouse went down (assets/rack_hover.js, the search its hover made), whatever plotly
    reports: the hover named that cable. */
    press: function (click) {
      const none = window.dash_clientside.no_update;
      if (!click || !click.points || !click.points.length) return [none];
      const p = click.points[0];
      const gd = document.querySelector("#rack .js-plotly-plot");
      const meta = gd && gd._fullLayout && gd._fullLayout.meta;
      if (meta && p.curveNumber === meta.hits) {
        const k = downAt && window.rackHover.nearest(gd, downAt.x, downAt.y);
        if (!k) return [none];  // the mouse went down on no cable
        return pressed({ curveNumber: k.curve, pointNumber: k.point });
      }
      return pressed({ curveNumber: p.curveNumber, pointNumber: p.pointNumber });
    },
    /* The rack and the cable map as drawn: the figures the server sent (rack-base,
    map-base: a whole figure, or the rack's Patch applied there), with the hover labels
    spelled out from the server's compact codes (label_data in
    dashboard/figures/rack/overlay.py) written in, so each view is drawn once a response.

    A front-view part's label is what it is (its trace's meta.hover, in the base figure),
    then its state and what a click does. The names are read from `fig`, the figure of the
    same server response as these codes: never from the drawn plot in the page, which lags
    it (until plotly.js has loaded and drawn, or after a change of fabric, it holds no names
    or another fabric's). A trace whose names do not match the codes in number keeps its
    text. Nothing held by Dash is changed: the traces written are copies. */
    compose: function (fig, map, d) {
      const none = window.dash_clientside.no_update;
      if (!fig || !fig.data) return [none, none];
      if (!d || !d.codes) return [fig, map || none];
      const out = new Array(d.codes.length);
      for (let i = 0; i < out.length; i++) out[i] = d.words[d.codes.charCodeAt(i) - 48];
      for (const i in d.named) out[+i] = d.named[i];
      const data = fig.data.slice();
      if (data[d.hits]) data[d.hits] = Object.assign({}, data[d.hits], { hovertext: out });
      for (const t in d.parts) {
        const p = d.parts[t];
        const trace = data[+t];
        const base = trace && trace.meta && trace.meta.hover;
        if (!base || base.length !== p.codes.length) continue;
        const text = new Array(base.length);
        for (let i = 0; i < text.length; i++) {
          text[i] = base[i] + "<br>" + p.words[p.codes.charCodeAt(i) - 48];
        }
        data[+t] = Object.assign({}, trace, { hovertext: text });
      }
      link();
      return [Object.assign({}, fig, { data: data }), mapFigure(d, out, map)];
    },
    /* A press on the cable map is a press on the drawing's marker of the same cable, so
    the server reads one kind of press (and a double-click on either is told apart alike). */
    pressMap: function (click, map) {
      const none = window.dash_clientside.no_update;
      const meta = map && map.layout && map.layout.meta;
      if (!meta || !click || !click.points || !click.points.length) return [none];
      // Dash's clickData keeps a heatmap point's x and y (the names), not its [row, column]
      const p = click.points[0];
      const t = map.data && map.data[0];
      const k = t ? cell({ pointNumber: [t.y.indexOf(p.y), t.x.indexOf(p.x)] }, meta) : null;
      if (k === null) return [none];
      return pressed({ curveNumber: meta.hits, pointNumber: k });
    },
  };

  /* The map with its statuses (z, STATUSES' index, as the drawing's codes) and hover text
  written in, from the same codes: a row a GPU, `cols` cables to a row (cablemap.py). */
  function mapFigure(d, labels, map) {
    const meta = map && map.layout && map.layout.meta;
    if (!meta || !meta.cols || !map.data || d.codes.length % meta.cols) {
      return map || window.dash_clientside.no_update;
    }
    const rows = d.codes.length / meta.cols;
    const z = new Array(rows);
    const text = new Array(rows);
    for (let r = 0; r < rows; r++) {
      z[r] = new Array(meta.cols);
      text[r] = new Array(meta.cols);
      for (let c = 0; c < meta.cols; c++) {
        const k = r * meta.cols + c;
        z[r][c] = d.codes.charCodeAt(k) - 48;
        text[r][c] = labels[k];
      }
    }
    const data = map.data.slice();
    data[0] = Object.assign({}, data[0], { z: z, text: text });
    return Object.assign({}, map, { data: data });
  }

  /* The cable index of a map cell (a hovered or clicked heatmap point), or null. */
  function cell(p, meta) {
    const n = p.pointNumber || p.pointIndex;
    if (!Array.isArray(n) || n.length !== 2) return null;
    const r = n[0];
    const c = n[1];
    if (!Number.isInteger(r) || !Number.isInteger(c) || r < 0 || c < 0 || c >= meta.cols) {
      return null;
    }
    return r * meta.cols + c;
  }

  /* Hovering a cable on either the drawing or the map lights it on the other: plotly's own
  hover label, at the cable's marker on the drawing, at its cell on the map (and so the line
  under the rack reads it too). Bound once a plot, whenever labels are written. Plotly's
  Fx.hover is given a place (xval, yval), the form it honours on every trace type. */
  function graphs() {
    const rack = document.querySelector("#rack .js-plotly-plot");
    const map = document.querySelector("#cable-map .js-plotly-plot");
    const meta = map && map._fullLayout && map._fullLayout.meta;
    return rack && map && meta && window.Plotly ? { rack, map, meta } : null;
  }
  function mirror(to, place, subplot) {
    // a target, so plotly emits plotly_hover (dcc.Graph's hoverData: the line under the
    // rack); `mirrored` marks it, so it is not passed back
    const evt = Object.assign({ target: to, mirrored: true }, place);
    window.spacedHover(to, function () {  // assets/hover_spacing.js
      window.Plotly.Fx.hover(to, evt, subplot);
    });
  }
  function unmirror(to) {
    // with a target, so plotly emits plotly_unhover (the line under the rack clears)
    window.spacedHover.cancel(to);
    window.Plotly.Fx.unhover(to, { target: to, mirrored: true });
  }
  function mirrored(e) {
    return !!(e && e.event && e.event.mirrored);
  }
  function onRackHover(e) {
    const g = graphs();
    if (mirrored(e) || !g || !e.points || !e.points.length) return;
    const p = e.points[0];
    if (p.curveNumber !== g.meta.hits) return unmirror(g.map);
    // plotly hovers a place (a cell's column and row), not a point number, on a heatmap
    const r = Math.floor(p.pointNumber / g.meta.cols);
    mirror(g.map, { xval: p.pointNumber % g.meta.cols, yval: r });
  }
  function onMapHover(e) {
    const g = graphs();
    if (mirrored(e) || !g || !e.points || !e.points.length) return;
    const k = cell(e.points[0], g.meta);
    // the cable's hit point by its number (its place could tie with a neighbour's)
    if (k !== null) {
      window.rackHover.hoverPoint(g.rack, { curve: g.meta.hits, point: k }, { mirrored: true });
    }
  }
  function onUnhover(other) {
    return function (e) {
      const g = graphs();
      if (!mirrored(e) && g) unmirror(g[other]);
    };
  }
  /* A redraw keeps the cable's hover label that was up as it was drawn (plotly keeps its
  hover across a react), so after a press it read the state before it. Once the rack is
  redrawn, a cable hovered then is hovered again, silently (no unhover: the map the pointer
  may be on keeps its label), and its label is the new figure's. Quietly too: no hoverData,
  so no second request for the line under the rack, which the new URL already asked for
  with this same hover. */
  function relabel() {
    const g = graphs();
    const d = g && g.rack._hoverdata;
    if (!d || d.length !== 1 || d[0].curveNumber !== g.meta.hits) return;
    const p = { curve: g.meta.hits, point: d[0].pointNumber };
    window.Plotly.Fx.unhover(g.rack);
    window.rackHover.hoverPoint(g.rack, p, null);
  }
  function link() {
    setTimeout(function () {
      const rack = document.querySelector("#rack .js-plotly-plot");
      if (rack && rack.on) window.rackHover.bind(rack);  // the spine's exact hover
      const g = graphs();
      if (!g) return setTimeout(link, 200);  // not drawn yet
      if (!g.rack._linkedHover && g.rack.on) {
        g.rack.on("plotly_hover", onRackHover);
        g.rack.on("plotly_unhover", onUnhover("map"));
        g.rack.on("plotly_afterplot", relabel);
        g.rack._linkedHover = true;
      }
      if (!g.map._linkedHover && g.map.on) {
        g.map.on("plotly_hover", onMapHover);
        g.map.on("plotly_unhover", onUnhover("rack"));
        g.map._linkedHover = true;
      }
    }, 0);
  }
})();
