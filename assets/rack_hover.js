/* The one file that reads plotly.js's private fields (the axes' pixel mapping, the full
layout and data, the hover data): written against plotly.js 4.1.1, the version Dash serves
(the plotly package's package_data/plotly.min.js). tests/test_assets.py fails when that
version changes, or when another file of assets/ reads a private field.

The spine's exact hover: the pointer names the truly nearest cable.

The spine's 5,184 hit points (one a cable, part-way along it) are an SVG scatter drawn with
nothing visible (mode "none", dashboard/figures/rack/spine.py). They used to be WebGL, whose
hover picks the nearest point, because plotly's SVG hover calls every point within a few
pixels of the pointer a tie and names one of them, while markers here sit within a pixel of
each other. WebGL cost the first page ~1.2 s (its first context, software GL in a headless
browser); this costs nothing to draw.

Over the spine, a pointer's hover is found here, not by plotly: plotly asks
"plotly_beforehover" first, and the handler answers false after hovering the nearest hit
point itself, by number (Fx.hover with [{curveNumber, pointNumber}], plotly's form for a
given point). A press on the spine asks the same search where the mouse went down
(assets/rack_press.js), so a click fails what the hover names. The search is over every hit
point (5,184 distances, ~0.1 ms), in the pixels plotly draws them at, within the layout's
hoverdistance. Elsewhere (the front view) plotly's own hover is untouched. */
(function () {
  function hits(gd) {  // the hit points' trace, named in the rack's layout.meta
    const meta = gd && gd._fullLayout && gd._fullLayout.meta;
    const i = meta && Number.isInteger(meta.hits) ? meta.hits : -1;
    const t = gd._fullData && gd._fullData[i];
    return t && t.x && t.y ? { curve: i, t: t } : null;
  }

  /* The hit point nearest the pointer (page coordinates), or null: none on the spine within
  hoverdistance, or the pointer not over the spine. Ties (the same distance) go to the
  lower number. */
  function nearest(gd, clientX, clientY) {
    const h = hits(gd);
    const l = gd && gd._fullLayout;
    if (!h || !l || !l.xaxis2 || !l.yaxis) return null;
    const xa = l.xaxis2;
    const ya = l.yaxis;
    const r = gd.getBoundingClientRect();
    const px = clientX - r.left - xa._offset;
    const py = clientY - r.top - ya._offset;
    if (!(px >= 0 && px <= xa._length && py >= 0 && py <= ya._length)) return null;
    // plotly's own reach for these points: hoverdistance, plus the half pixel it grants a
    // point drawn as nothing; beyond it plotly finds none either (and unhovers itself)
    const reach = l.hoverdistance >= 0 ? l.hoverdistance + 0.5 : Infinity;
    let best = null;
    let d2 = reach * reach;
    const x = h.t.x;
    const y = h.t.y;
    for (let k = 0; k < x.length; k++) {
      const dx = xa.l2p(x[k]) - px;  // where plotly draws it (to 0.01 px)
      const dy = ya.l2p(y[k]) - py;
      const e = dx * dx + dy * dy;
      if (e < d2 || (e === d2 && best === null)) {
        d2 = e;
        best = k;
      }
    }
    return best === null ? null : { curve: h.curve, point: best };
  }

  /* The front-view part nearest the pointer (page coordinates) among the traces `curves`,
  within the layout's hoverdistance of its marker's edge, or null: what plotly's own hover
  finds there, for a click plotly emitted no event for (its hover was deferred by its 50 ms
  throttle, or cleared by a redraw, as the click came). */
  function partAt(gd, clientX, clientY, curves) {
    const l = gd && gd._fullLayout;
    if (!l || !gd._fullData) return null;
    const r = gd.getBoundingClientRect();
    const reach = l.hoverdistance >= 0 ? l.hoverdistance + 0.5 : Infinity;
    let best = null;
    let dBest = reach;
    curves.forEach(function (c) {
      const t = gd._fullData[c];
      if (!t || !t.x || !t.y) return;
      const xa = l[t.xaxis === "x" ? "xaxis" : "xaxis" + t.xaxis.slice(1)];
      const ya = l[t.yaxis === "y" ? "yaxis" : "yaxis" + t.yaxis.slice(1)];
      const radius = t.marker && t.mode !== "none" ? (+t.marker.size || 0) / 2 : 0;
      const px = clientX - r.left - xa._offset;
      const py = clientY - r.top - ya._offset;
      for (let k = 0; k < t.x.length; k++) {
        const d = Math.max(0, Math.hypot(xa.l2p(t.x[k]) - px, ya.l2p(t.y[k]) - py) - radius);
        if (d < dBest) {
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

  function hovered(gd, p) {
    const d = gd._hoverdata;
    return !!(d && d.length === 1 && d[0].curveNumber === p.curve && d[0].pointNumber === p.point);
  }

  /* Hover one point by number and tell the page (dcc.Graph's hoverData: the line under the
  rack; the map's mirror) with plotly_hover, as plotly does for a pointer. Plotly draws the
  label of a point given by number but emits nothing for it (plotly.js 4 fails emitting the
  given-point form: its event has no pointer place), so the event is emitted here from
  what plotly hovered. `event` is what the listeners see as the event (the pointer's, or a
  mirror's mark). Spaced (assets/hover_spacing.js); should plotly still defer it (a hover of
  its own within 50 ms), it is told once plotly has drawn it. */
  function hoverPoint(gd, p, event, now) {
    // spaced (assets/hover_spacing.js), but a pointer's (now) at once: see before()
    (now ? window.spacedHover.now : window.spacedHover)(gd, function () {
      window.Plotly.Fx.hover(gd, [{ curveNumber: p.curve, pointNumber: p.point }], "x2y");
      if (event !== null) told();  // null: quiet, the label only (no hoverData)
    });
    function tell() {
      if (!hovered(gd, p)) return false;
      const l = gd._fullLayout;
      const pt = gd._hoverdata[0];
      gd.emit("plotly_hover", {
        event: event,
        points: gd._hoverdata,
        xaxes: [l.xaxis2],
        yaxes: [l.yaxis],
        xvals: [pt.x],
        yvals: [pt.y],
      });
      return true;
    }
    function told() {
      if (!tell()) setTimeout(tell, 60);
    }
  }

  /* plotly_beforehover: a real pointer near a cable on the spine is hovered here (false:
  plotly's own search is skipped); anything else (the front view, no cable in reach, the
  pointer leaving, the keyboard's hovers, which name a place) goes on to plotly. */
  function before(gd) {
    return function (e) {
      // plotly asks this before an unhover too (the pointer leaving): that goes on
      if (!(e instanceof MouseEvent)) return true;
      // the pointer left, or is off the spine (plotly's search): a cable's hover still
      // waiting to be drawn is dropped
      const p = e.type === "mouseout" || e.type === "mouseleave" ? null : nearest(gd, e.clientX, e.clientY);
      if (p === null) {
        window.spacedHover.cancel(gd);
        return true;
      }
      // at once: inside plotly's own hover, so plotly runs it at once too (a spaced one
      // could be deferred by plotly, then cancelled by its unhover of a drag box the
      // pointer crossed: a label left on the cable before, seen once in CI under load)
      if (!hovered(gd, p)) hoverPoint(gd, p, e, true);
      return false;
    };
  }

  function bind(gd) {
    if (gd && !gd._exactHover && gd.on) {
      gd.on("plotly_beforehover", before(gd));
      gd._exactHover = true;
    }
  }
  window.rackHover = {
    PLOTLY_JS: "4.1.1",
    nearest: nearest,
    /* The points plotly hovers on gd now (its hover data), or null. */
    hoverData: function (gd) {
      return gd._hoverdata || null;
    },
    partAt: partAt,
    cellAt: cellAt,
    hoverPoint: hoverPoint,
    /* Bound once a plot (rack_press.js's link, once the rack is drawn). */
    bind: bind,
  };
  /* ... and at the latest by the first pointer move over the drawing: rack_press.js's link
  polls, and a pointer that moved onto the spine between the first draw and its next poll
  (later when the browser is busy, as when the page below mounts) was hovered by plotly's
  own search, which names any of the hit points within its reach: a neighbour's label,
  kept until the pointer moved again. A capture listener runs before plotly's. */
  document.addEventListener(
    "mousemove",
    function (e) {
      const gd = e.target && e.target.closest && e.target.closest("#rack .js-plotly-plot");
      if (gd) bind(gd);
    },
    true
  );
})();
