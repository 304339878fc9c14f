/* The one file that reads plotly.js's private fields (axes' pixel mapping, full layout and
data, hover data), written against plotly.js 4.1.1, the version Dash serves: tests/
test_assets.py fails when that changes, or when another file reads one.
The spine's exact hover: its 5,184 hit points (figures/rack/spine.py) sit within a pixel of
each other and plotly's SVG hover calls all in reach a tie, so there plotly_beforehover
answers false after hovering the nearest by number. A press asks the same search. */
(function () {
  function axes(l, t) {  // a trace's axes in the full layout
    return [l["xaxis" + t.xaxis.slice(1)], l["yaxis" + t.yaxis.slice(1)]];
  }

  /* The point of `curves` nearest the pointer (page coordinates), within hoverdistance (+0.5
  px, as plotly) of its marker's edge, on its subplot: {curve, point} or null; ties: lowest. */
  function nearest(gd, clientX, clientY, curves) {
    const l = gd && gd._fullLayout;
    if (!l || !gd._fullData) return null;
    const r = gd.getBoundingClientRect();
    const reach = l.hoverdistance >= 0 ? l.hoverdistance + 0.5 : Infinity;
    let best = null;
    let dBest = reach;
    curves.forEach(function (c) {
      const t = gd._fullData[c];
      if (!t || !t.x || !t.y) return;
      const [xa, ya] = axes(l, t);
      const px = clientX - r.left - xa._offset;
      const py = clientY - r.top - ya._offset;
      if (!(px >= 0 && px <= xa._length && py >= 0 && py <= ya._length)) return;
      const radius = t.marker && t.mode !== "none" ? (+t.marker.size || 0) / 2 : 0;
      for (let k = 0; k < t.x.length; k++) {
        const d = Math.max(0, Math.hypot(xa.l2p(t.x[k]) - px, ya.l2p(t.y[k]) - py) - radius);
        if (d < dBest || (d === dBest && best === null)) {
          dBest = d;
          best = { curve: c, point: k };
        }
      }
    });
    return best;
  }

  /* The cable map's cell under the pointer (page coordinates): {row, col}, or null. */
  function cellAt(gd, clientX, clientY) {
    const l = gd && gd._fullLayout;
    const t = gd && gd._fullData && gd._fullData[0];
    if (!l || !t || !t.z) return null;
    const r = gd.getBoundingClientRect();
    const row = Math.round(l.yaxis.p2l(clientY - r.top - l.yaxis._offset));
    const col = Math.round(l.xaxis.p2l(clientX - r.left - l.xaxis._offset));
    const ok = row >= 0 && row < t.z.length && col >= 0 && col < t.z[0].length;
    return ok ? { row: row, col: col } : null;
  }

  const hovered = (gd, p, d = gd._hoverdata) =>  // plotly hovers p, and only p
    !!(d && d.length === 1 && d[0].curveNumber === p.curve && d[0].pointNumber === p.point);

  /* Hover one point by number and emit plotly_hover (hoverData: the line under the rack),
  which plotly.js 4 does not for a point given so; `event` is what listeners see (null: the
  label only). A hover plotly deferred (its 50 ms throttle) is told once drawn. */
  function hoverPoint(gd, p, event) {
    window.Plotly.Fx.hover(gd, [{ curveNumber: p.curve, pointNumber: p.point }], "x2y");
    if (event === null) return;
    const tell = function () {
      if (!hovered(gd, p)) return false;
      const l = gd._fullLayout;
      const pt = gd._hoverdata[0];
      gd.emit("plotly_hover", { event, points: gd._hoverdata, xaxes: [l.xaxis2], yaxes: [l.yaxis], xvals: [pt.x], yvals: [pt.y] });
      return true;
    };
    if (!tell()) setTimeout(tell, 60);
  }

  /* A pointer near a cable on the spine is hovered here (false: plotly's search skipped);
  anything else (the front view, the pointer leaving, the keyboard's places) goes on. */
  function before(gd) {
    return function (e) {
      if (!(e instanceof MouseEvent) || e.type === "mouseout" || e.type === "mouseleave") return true;
      const meta = gd._fullLayout.meta;
      const p = meta && nearest(gd, e.clientX, e.clientY, [meta.hits]);
      if (!p) return true;
      if (!hovered(gd, p)) hoverPoint(gd, p, e);
      return false;
    };
  }
  function bind(gd) {  // once a plot: by rack_press.js's link, or the first pointer move
    if (gd && !gd._exactHover && gd.on) {
      gd.on("plotly_beforehover", before(gd));
      gd._exactHover = true;
    }
  }
  window.rackHover = {
    PLOTLY_JS: "4.1.1",
    nearest: nearest,
    hoverData: (gd) => gd._hoverdata || null,  // the points plotly hovers on gd now
    cellAt: cellAt,
    hoverPoint: hoverPoint,
    bind: bind,
  };
  // bound at the latest by the first pointer move over the drawing (capture: before plotly's)
  document.addEventListener("mousemove", function (e) {
    const gd = e.target && e.target.closest && e.target.closest("#rack .js-plotly-plot");
    if (gd) bind(gd);
  }, true);
})();
