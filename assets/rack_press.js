/* A press on the rack or the cable map is an edit of the URL's query, made here on the query
as it is now: the part toggled in `fail=` (or `flaky=` in the flaky mode). The server only
reads the URL, so quick presses compose and none is lost; undo and redo are the URL's history.
plotly's doubleClick is off: a double-click is two presses. The inspect mode, and flaky on a
part that is no cable, edit nothing (the server says why, from the press store). */
(function () {
  const ORDER = ["fabric", "fail", "flaky"];  // model/scenario.py to_query's first keys

  /* `search` with `id` toggled in `key` and taken out of `other`, every other key as it was. */
  function edit(search, id, key, other) {
    const pairs = (search || "").replace(/^\?/, "").split("&").filter(Boolean)
      .map((kv) => (kv.includes("=") ? [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)] : [kv, ""]));
    const same = (a) => decodeURIComponent(a).toLowerCase() === id.toLowerCase();
    const list = (k) => ((pairs.find((kv) => kv[0] === k) || [k, ""])[1]).split(",").filter(Boolean);
    const put = function (k, vals) {
      const i = pairs.findIndex((kv) => kv[0] === k);
      if (i >= 0 && !vals.length) pairs.splice(i, 1);
      else if (i >= 0) pairs[i][1] = vals.join(",");
      else if (vals.length) {  // after the keys before it in the canonical order
        let at = 0;
        pairs.forEach((kv, j) => { if (ORDER.includes(kv[0]) && ORDER.indexOf(kv[0]) < ORDER.indexOf(k)) at = j + 1; });
        pairs.splice(at, 0, [k, vals.join(",")]);
      }
    };
    const had = list(key);
    put(key, had.some(same) ? had.filter((a) => !same(a)) : had.concat([id]));
    put(other, list(other).filter((a) => !same(a)));
    const q = pairs.map((kv) => kv[0] + "=" + kv[1]).join("&");
    return q ? "?" + q : "";
  }

  /* Press the rack's point (curve, point) in the click mode it was drawn for (layout.meta):
  the URL's query edited now, and the press told to the server (its message, the #fragment).
  Also the keyboard's Enter (assets/present.js). */
  function press(curve, point) {
    const rack = document.querySelector("#rack .js-plotly-plot");
    const meta = rack && rack.layout && rack.layout.meta;
    const t = meta && rack.data[curve];
    const c = t && t.customdata && t.customdata[point];
    const part = Array.isArray(c) ? c[0] : c;
    if (typeof part !== "string" || !part) return;
    const id = (meta.prefix || "") + part;  // a domain's rack on show before the part's ID
    const mode = meta.mode || "fail";
    const search = window.location.search;
    const set = window.dash_clientside.set_props;
    set("rack-press", { data: { id: id, mode: mode, before: search, at: performance.now() } });
    if (mode === "inspect" || (mode === "flaky" && curve !== meta.hits)) return;
    const after = mode === "flaky" ? edit(search, id, "flaky", "fail") : edit(search, id, "fail", "flaky");
    // the address bar now (the next press reads it), and dcc.Location told the same
    const loc = window.location;
    window.history.pushState(window.history.state, "", loc.pathname + after + loc.hash);
    set("url", { search: after, href: window.location.href });
  }
  window.rackPress = press;

  /* A click (mouse down and up within a few pixels: a drag zooms) on a view's plot area
  presses what is under the pointer where it went down, found as plotly's hover finds it
  (assets/rack_hover.js), not plotly's click event: that names the point last hovered, and
  its hover is throttled and cleared by a redraw (a quick click named the part before). */
  const SLOP_PX = 4;
  let downAt = null;
  document.addEventListener("mousedown", function (e) {
    const plot = e.target.closest && e.target.closest(".draglayer");
    const on = plot && plot.closest("#rack, #cable-map");
    downAt = on ? { x: e.clientX, y: e.clientY, on: on.id } : null;
  }, true);
  document.addEventListener("click", function (e) {
    const at = downAt;
    downAt = null;
    const g = graphs();
    if (!at || !g || Math.hypot(e.clientX - at.x, e.clientY - at.y) > SLOP_PX) return;
    const meta = g.rack.layout.meta;
    const h = window.rackHover;
    if (at.on === "rack") {
      const k = h.nearest(g.rack, at.x, at.y, [meta.hits]) ||
        h.nearest(g.rack, at.x, at.y, meta.clickable.filter((c) => c !== meta.hits));
      if (k) press(k.curve, k.point);
    } else {
      const c = h.cellAt(g.map, at.x, at.y);
      if (c) press(meta.hits, c.row * g.meta.cols + c.col);
    }
  }, true);

  /* The rack and the cable map as drawn: the figures the server sent (the rack's base, or its
  Patch applied there; the map's) with the hover labels spelled out from the server's compact
  codes (figures/rack/overlay.py label_data): a cable's label its code's words (or its own,
  for the cables the scenario names), a front part's what it is (its trace's meta.hover, from
  the same response, never the drawn plot, which lags it) and its state. Copies: nothing Dash
  holds is changed. */
  function compose(fig, map, d) {
    const none = window.dash_clientside.no_update;
    if (!fig || !fig.data) return [none, none];
    if (!d || !d.codes) return [fig, map || none];
    const out = Array.from(d.codes, (ch, i) => d.named[i] || d.words[ch.charCodeAt(0) - 48]);
    const data = fig.data.slice();
    if (data[d.hits]) data[d.hits] = Object.assign({}, data[d.hits], { hovertext: out });
    for (const t in d.parts) {
      const p = d.parts[t];
      const base = data[+t] && data[+t].meta && data[+t].meta.hover;
      if (!base || base.length !== p.codes.length) continue;
      const text = base.map((b, i) => b + "<br>" + p.words[p.codes.charCodeAt(i) - 48]);
      data[+t] = Object.assign({}, data[+t], { hovertext: text });
    }
    link();
    return [Object.assign({}, fig, { data: data }), mapFigure(d, out, map)];
  }
  window.dash_clientside = window.dash_clientside || {};
  window.dash_clientside.rack = { compose: compose };

  /* The map's statuses (z: the same codes) and hover text, a row a GPU, `cols` cables a row. */
  function mapFigure(d, labels, map) {
    const meta = map && map.layout && map.layout.meta;
    if (!meta || !meta.cols || !map.data || d.codes.length % meta.cols) {
      return map || window.dash_clientside.no_update;
    }
    const rows = Array.from({ length: d.codes.length / meta.cols }, (_, r) => r * meta.cols);
    const z = rows.map((k) => Array.from({ length: meta.cols }, (_, c) => d.codes.charCodeAt(k + c) - 48));
    const text = rows.map((k) => labels.slice(k, k + meta.cols));
    const data = map.data.slice();
    data[0] = Object.assign({}, data[0], { z: z, text: text });
    return Object.assign({}, map, { data: data });
  }

  /* Hovering a cable on either view lights it on the other (plotly's own label there, and so
  the line under the rack): Fx.hover given a place (xval, yval) on the map, the cable's point
  by number on the drawing (a place could tie with a neighbour's). `mirrored` marks these so
  they are not passed back. */
  function graphs() {
    const rack = document.querySelector("#rack .js-plotly-plot");
    const map = document.querySelector("#cable-map .js-plotly-plot");
    const meta = map && map.layout && map.layout.meta;
    return rack && map && meta && window.Plotly ? { rack, map, meta } : null;
  }
  const mirrored = (e) => !!(e && e.event && e.event.mirrored);
  function onRackHover(e) {
    const g = graphs();
    if (mirrored(e) || !g || !e.points || !e.points.length) return;
    const p = e.points[0];
    if (p.curveNumber !== g.meta.hits) return unmirror(g.map);
    const at = { target: g.map, mirrored: true, xval: p.pointNumber % g.meta.cols, yval: Math.floor(p.pointNumber / g.meta.cols) };
    window.Plotly.Fx.hover(g.map, at);
  }
  function unmirror(to) {  // with a target: plotly emits plotly_unhover (the line clears)
    window.Plotly.Fx.unhover(to, { target: to, mirrored: true });
  }
  function onMapHover(e) {
    const g = graphs();
    if (mirrored(e) || !g || !e.points || !e.points.length) return;
    const n = e.points[0].pointNumber || e.points[0].pointIndex;  // [row, col]
    if (!Array.isArray(n) || n[1] < 0 || n[1] >= g.meta.cols) return;
    window.rackHover.hoverPoint(g.rack, { curve: g.meta.hits, point: n[0] * g.meta.cols + n[1] }, { mirrored: true });
  }
  const onUnhover = (other) => function (e) {
    const g = graphs();
    if (!mirrored(e) && g) unmirror(g[other]);
  };
  /* plotly keeps a hover label across a redraw, so after a press a hovered cable's label read
  the state before: it is hovered again, quietly (no hoverData: the new URL asked already). */
  function relabel() {
    const g = graphs();
    const d = g && window.rackHover.hoverData(g.rack);
    if (!d || d.length !== 1 || d[0].curveNumber !== g.meta.hits) return;
    window.Plotly.Fx.unhover(g.rack);
    window.rackHover.hoverPoint(g.rack, { curve: g.meta.hits, point: d[0].pointNumber }, null);
  }
  const linked = new WeakSet();  // the plots whose events are bound
  function link() {
    setTimeout(function () {
      const g = graphs();
      if (!g) return setTimeout(link, 200);  // not drawn yet
      window.rackHover.bind(g.rack);  // the spine's exact hover
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
