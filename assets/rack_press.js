/* A press on the rack or the cable map is an edit of the URL's query, made here on the query
as it is now: this part toggled in `fail=` (or in `flaky=` in the flaky mode). The server only
reads the URL, so quick presses compose however slow its answers, and none can be lost;
undo and redo are the URL's history. A double-click is two presses (plotly's doubleClick is
off: nothing is taken back). The press store says what was pressed, for the message and the
#fragment (the server's). The inspect mode, and flaky on a part that is no link or cable,
edit nothing: the server says why. */
(function () {
  const ORDER = ["fabric", "fail", "flaky"];  // model/scenario.py to_query's first keys

  /* `search` with `id` toggled in `key` and taken out of `other`, every other key as it was. */
  function edit(search, id, key, other) {
    const pairs = (search || "").replace(/^\?/, "").split("&").filter(Boolean)
      .map(function (kv) {
        const i = kv.indexOf("=");
        return i < 0 ? [kv, ""] : [kv.slice(0, i), kv.slice(i + 1)];
      });
    const same = (a) => decodeURIComponent(a).toLowerCase() === id.toLowerCase();
    const list = function (k) {
      const p = pairs.find((kv) => kv[0] === k);
      return p ? p[1].split(",").filter(Boolean) : [];
    };
    const had = list(key);
    const on = had.some(same) ? had.filter((a) => !same(a)) : had.concat([id]);
    const put = function (k, vals) {
      const i = pairs.findIndex((kv) => kv[0] === k);
      if (!vals.length) {
        if (i >= 0) pairs.splice(i, 1);
      } else if (i >= 0) {
        pairs[i][1] = vals.join(",");
      } else {  // after the keys before it in the canonical order
        let at = 0;
        pairs.forEach(function (kv, j) {
          if (ORDER.indexOf(kv[0]) >= 0 && ORDER.indexOf(kv[0]) < ORDER.indexOf(k)) at = j + 1;
        });
        pairs.splice(at, 0, [k, vals.join(",")]);
      }
    };
    put(key, on);
    put(other, list(other).filter((a) => !same(a)));
    const q = pairs.map((kv) => kv[0] + "=" + kv[1]).join("&");
    return q ? "?" + q : "";
  }

  /* The part a point of the drawing names (its trace's customdata), with the domain's rack
  on show before it; null for a point that names none. */
  function partOf(rack, curve, point) {
    const t = rack.data[curve];
    const c = t && t.customdata && t.customdata[point];
    const id = Array.isArray(c) ? c[0] : c;
    return typeof id === "string" && id ? (rack.layout.meta.prefix || "") + id : null;
  }

  /* Press the rack's point (curve, point) in the click mode the drawing was drawn for (its
  layout.meta, as its hover labels say): the URL's query edited now, on the query as it is
  now, and the press told to the server for its message and the #fragment. Called at each
  plotly_click itself (a Dash input set twice before its callback runs is read once: a
  double-click's second press was lost that way), and by the keyboard (assets/present.js). */
  function press(curve, point) {
    const rack = document.querySelector("#rack .js-plotly-plot");
    const meta = rack && rack.layout && rack.layout.meta;
    const id = meta && partOf(rack, curve, point);
    if (!id) return;
    const mode = meta.mode || "fail";
    const search = window.location.search;
    const set = window.dash_clientside.set_props;
    set("rack-press", { data: { id: id, mode: mode, before: search, at: performance.now() } });
    // the inspect mode fails nothing, and only a cable can be flaky: the server says so
    if (mode === "inspect" || (mode === "flaky" && curve !== meta.hits)) return;
    const after = mode === "flaky" ? edit(search, id, "flaky", "fail") : edit(search, id, "fail", "flaky");
    // the address bar now, not once dcc.Location has rendered (the next press, made before
    // that, read the query before this one); Location, told the same address, pushes no more
    const loc = window.location;
    window.history.pushState(window.history.state, "", loc.pathname + after + loc.hash);
    set("url", { search: after, href: window.location.href });
  }
  window.rackPress = press;

  /* A click (a mouse-down and up within a few pixels: a drag zooms) on a view presses the
  part under the pointer where it went down, found as plotly's hover finds it (the nearest
  within hoverdistance: assets/rack_hover.js): on the spine the nearest cable, in the front
  view the nearest part, on the map its cell's cable. Not plotly's click event: it names the
  point plotly last hovered, and its hover is throttled (50 ms) and cleared by a redraw, so
  a quick click named the part before or nothing (seen under load). Once a press down.
  Pointer events, so a finger's tap presses as a click does: plotly takes a touch's own
  events, and no click follows it. */
  const SLOP_PX = 4;
  let downAt = null;
  document.addEventListener("pointerdown", function (e) {
    downAt = null;
    if (!e.isPrimary || e.button !== 0) return;
    // on a view's plot area (plotly's drag layer), not its mode bar or anything around it
    const plot = e.target.closest && e.target.closest(".draglayer");
    const on = plot && plot.closest("#rack, #cable-map");
    downAt = on ? { x: e.clientX, y: e.clientY, on: on.id } : null;
  }, true);
  document.addEventListener("pointercancel", function () { downAt = null; }, true);
  document.addEventListener("pointerup", function (e) {
    const at = downAt;
    downAt = null;
    const g = graphs();
    if (!at || !g || Math.hypot(e.clientX - at.x, e.clientY - at.y) > SLOP_PX) return;
    const meta = g.rack.layout.meta;
    if (at.on === "rack") {
      const k = window.rackHover.nearest(g.rack, at.x, at.y) ||
        window.rackHover.partAt(g.rack, at.x, at.y, meta.clickable.filter((c) => c !== meta.hits));
      if (k) press(k.curve, k.point);
    } else {
      const c = window.rackHover.cellAt(g.map, at.x, at.y);
      if (c) press(meta.hits, c.row * g.meta.cols + c.col);
    }
  }, true);

  window.dash_clientside = window.dash_clientside || {};
  window.dash_clientside.rack = {
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
      // a front part's label left up (a tap's) says the state before this answer: gone
      const g = graphs();
      const up = g && window.rackHover.hoverData(g.rack);
      if (up && up.length === 1 && up[0].curveNumber !== g.meta.hits) window.Plotly.Fx.unhover(g.rack);
      return [Object.assign({}, fig, { data: data }), mapFigure(d, out, map)];
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
    const meta = map && map.layout && map.layout.meta;
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
    const d = g && window.rackHover.hoverData(g.rack);
    if (!d || d.length !== 1 || d[0].curveNumber !== g.meta.hits) return;
    const p = { curve: g.meta.hits, point: d[0].pointNumber };
    window.rackHover.hoverPoint(g.rack, p, null);
  }
  const linked = new WeakSet();  // the plots whose events are bound
  function link() {
    setTimeout(function () {
      const rack = document.querySelector("#rack .js-plotly-plot");
      if (rack && rack.on) window.rackHover.bind(rack);  // the spine's exact hover
      const g = graphs();
      if (!g) return setTimeout(link, 200);  // not drawn yet
      if (!linked.has(g.rack) && g.rack.on) {
        g.rack.on("plotly_hover", onRackHover);
        g.rack.on("plotly_unhover", onUnhover("map"));
        g.rack.on("plotly_afterplot", relabel);
        linked.add(g.rack);
      }
      if (!linked.has(g.map) && g.map.on) {
        g.map.on("plotly_hover", onMapHover);
        g.map.on("plotly_unhover", onUnhover("rack"));
        linked.add(g.map);
      }
    }, 0);
  }
})();
