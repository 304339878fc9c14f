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
  (function link() {  // once both views are drawn (their events kept across redraws)
    const g = graphs();
    if (!g || !g.rack.on || !g.map.on) return setTimeout(link, 200);
    window.rackHover.bind(g.rack);  // the spine's exact hover
    g.rack.on("plotly_hover", onRackHover);
    g.rack.on("plotly_unhover", onUnhover("map"));
    g.rack.on("plotly_afterplot", relabel);
    g.map.on("plotly_hover", onMapHover);
    g.map.on("plotly_unhover", onUnhover("rack"));
  })();
})();
