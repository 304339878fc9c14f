/* A press on the rack or the cable map is an edit of the URL's query made here, on the query
as it is now: the part toggled in `fail=` (or `flaky=` in the flaky mode). The server reads
only the URL, so quick presses compose and none is lost; undo and redo are the URL's history.
plotly's doubleClick is off: a double-click is two presses. */
(function () {
  const ORDER = ["fabric", "fail", "flaky"];  // model/scenario.py to_query's first keys

  /* `search` with `id` toggled in `key` and taken out of `other`, every other key as it was. */
  function edit(search, id, key, other) {
    const pairs = (search || "").replace(/^\?/, "").split("&").filter(Boolean)
      .map((kv) => (kv.includes("=") ? [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)] : [kv, ""]));
    const same = (a) => decodeURIComponent(a).toLowerCase() === id.toLowerCase();
    const list = (k) => (pairs.find((kv) => kv[0] === k) || [k, ""])[1].split(",").filter(Boolean);
    const put = function (k, vals) {
      const i = pairs.findIndex((kv) => kv[0] === k);
      if (i >= 0) pairs.splice(i, 1);
      // where it was, or after the keys before it in the canonical order
      const before = (kv) => ORDER.includes(kv[0]) && ORDER.indexOf(kv[0]) < ORDER.indexOf(k);
      const at = i >= 0 ? i : pairs.reduce((a, kv, j) => (before(kv) ? j + 1 : a), 0);
      if (vals.length) pairs.splice(at, 0, [k, vals.join(",")]);
    };
    const had = list(key);
    put(key, had.some(same) ? had.filter((a) => !same(a)) : had.concat([id]));
    put(other, list(other).filter((a) => !same(a)));
    return pairs.length ? "?" + pairs.map((kv) => kv[0] + "=" + kv[1]).join("&") : "";
  }

  /* Press the rack's point (curve, point) in the click mode drawn (layout.meta): the query
  edited now; the press told to the server (its message, the #fragment; in the inspect mode,
  or flaky on a part that is no cable, nothing else). Also the keyboard's (present.js). */
  function press(curve, point) {
    const rack = document.querySelector("#rack .js-plotly-plot");
    const meta = rack && rack.layout && rack.layout.meta;
    const t = meta && rack.data[curve];
    const c = t && t.customdata && t.customdata[point];
    const part = Array.isArray(c) ? c[0] : c;
    if (typeof part !== "string" || !part) return;
    const id = (meta.prefix || "") + part;  // a domain's rack before the part's own ID
    const mode = meta.mode || "fail";
    const [search, set] = [window.location.search, window.dash_clientside.set_props];
    set("rack-press", { data: { id, mode, before: search, at: performance.now() } });
    if (mode === "inspect" || (mode === "flaky" && curve !== meta.hits)) return;
    const after = mode === "flaky" ? edit(search, id, "flaky", "fail") : edit(search, id, "fail", "flaky");
    // the address bar now (the next press reads it), and dcc.Location told the same
    const loc = window.location;
    window.history.pushState(window.history.state, "", loc.pathname + after + loc.hash);
    set("url", { search: after, href: window.location.href });
  }
  window.rackPress = press;

  /* A pointer down and up within a few pixels (a drag zooms; a tap too) on a view's plot area
  presses what is under where it went down, as the hover finds it (rack_hover.js); not
  plotly_click: it names the point last hovered (throttled, cleared by a redraw). */
  const SLOP_PX = 4;
  let downAt = null;
  document.addEventListener("pointerdown", function (e) {
    const on = e.isPrimary && e.button === 0 && e.target.closest && e.target.closest(".draglayer") &&
      e.target.closest("#rack, #cable-map");
    downAt = on ? { x: e.clientX, y: e.clientY, on: on.id } : null;
  }, true);
  document.addEventListener("pointercancel", () => { downAt = null; }, true);
  document.addEventListener("pointerup", function (e) {
    const at = downAt;
    downAt = null;
    const g = graphs();
    if (!at || !g || Math.hypot(e.clientX - at.x, e.clientY - at.y) > SLOP_PX) return;
    const [meta, h] = [g.rack.layout.meta, window.rackHover];
    if (at.on === "rack") {
      const k = h.nearest(g.rack, at.x, at.y, [meta.hits]) ||
        h.nearest(g.rack, at.x, at.y, meta.clickable.filter((c) => c !== meta.hits));
      if (k) press(k.curve, k.point);
    } else {
      const c = h.cellAt(g.map, at.x, at.y);
      if (c) press(meta.hits, c.row * g.meta.cols + c.col);
    }
  }, true);

  /* A cable hovered on either view is hovered on the other (its label, the line under the
  rack): on the map by place, on the drawing by number; `mirrored` marks these. */
  function graphs() {
    const [rack, map] = ["#rack", "#cable-map"].map((v) => document.querySelector(v + " .js-plotly-plot"));
    const meta = map && map.layout && map.layout.meta;
    return rack && map && meta && window.Plotly ? { rack, map, meta } : null;
  }
  const mirrored = (e) => !!(e && e.event && e.event.mirrored);
  function onRackHover(e) {
    const g = graphs();
    if (mirrored(e) || !g || !e.points || !e.points.length) return;
    const p = e.points[0];
    if (p.curveNumber !== g.meta.hits) return unmirror(g.map);
    const n = p.pointNumber;
    window.Plotly.Fx.hover(g.map, { target: g.map, mirrored: true, xval: n % g.meta.cols, yval: Math.floor(n / g.meta.cols) });
  }
  // with a target: plotly emits plotly_unhover (the line under the rack clears)
  const unmirror = (to) => window.Plotly.Fx.unhover(to, { target: to, mirrored: true });
  function onMapHover(e) {
    const g = graphs();
    if (mirrored(e) || !g || !e.points || !e.points.length) return;
    const n = e.points[0].pointNumber || e.points[0].pointIndex;  // [row, col]
    if (!Array.isArray(n) || n[1] < 0 || n[1] >= g.meta.cols) return;
    window.rackHover.hoverPoint(g.rack, { curve: g.meta.hits, point: n[0] * g.meta.cols + n[1] }, { mirrored: true });
  }
  const onUnhover = (other) => (e) => !mirrored(e) && graphs() && unmirror(graphs()[other]);
  /* plotly keeps a label across a redraw (the state before): a cable's hovered again, quietly
  (no hoverData: the new URL asked already); a front part's (a tap's) taken down. */
  function relabel() {
    const g = graphs();
    const d = g && window.rackHover.hoverData(g.rack);
    if (!d || d.length !== 1) return;
    if (d[0].curveNumber !== g.meta.hits) return window.Plotly.Fx.unhover(g.rack);
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
