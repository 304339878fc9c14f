/* Presentation mode, the printed report and the keyboard (issue 13).

Presentation mode (the header's Present button; Esc leaves it): the rack and the headline
cards only, in large type, for a projector: a class on the page's root (#page), styled in
style.css. Nothing in the scenario or the URL changes.

The keyboard reaches every part of the rack without a pointer. Tab to the drawing: the arrow
keys walk its parts (up and down a tray row at a time, left and right along the row: the tray,
its GPUs or chips, its controller); Tab on to the cable map: the arrows walk its cells (a row
a GPU, a column a cable slot). Each part or cable walked to is hovered as the pointer would
(its label, the line under the rack, the other view lit). Enter or Space presses it, as a
click does in the click mode. */
(function () {
  function page() {
    return document.getElementById("page");
  }
  function present(on) {
    const p = page();
    if (!p) return;
    p.classList.toggle("present", on);
    const b = document.getElementById("present-btn");
    if (b) b.textContent = on ? "Leave presentation (Esc)" : "Present";
    window.dispatchEvent(new Event("resize"));  // the charts refit their new width
  }
  document.addEventListener("click", function (e) {
    if (e.target && e.target.id === "present-btn") {
      present(!page().classList.contains("present"));
    } else if (e.target && e.target.id === "print-report") {
      // everything below the first screen drawn first (assets/later.js), then the browser's
      // print, which the print style sheet lays out as a report
      const b = e.target;
      b.disabled = true;
      window.belowDrawn().then(function () {
        b.disabled = false;
        window.print();
      });
    }
  });

  const cursor = { rack: null, map: null };  // where the keyboard is on each view

  function plot(id) {
    return document.querySelector("#" + id + " .js-plotly-plot");
  }
  function hover(gd, place, subplot) {  // spaced: assets/hover_spacing.js
    window.spacedHover(gd, function () {
      window.Plotly.Fx.hover(gd, Object.assign({ target: gd }, place), subplot);
    });
  }
  function press(curve, point) {  // as a click does (assets/rack_press.js)
    window.rackPress(curve, point);
  }

  /* The drawing's front-view parts as rows top to bottom, each left to right:
  [{curve, point, x, y}]. The clickable front traces are named in the figure's trace names. */
  const FRONT = ["trays", "gpus", "chips", "controllers"];
  function rows(gd) {
    const byY = new Map();
    gd.data.forEach(function (t, curve) {
      if (FRONT.indexOf(t.name) < 0) return;
      for (let i = 0; i < t.x.length; i++) {
        const y = t.y[i];
        if (!byY.has(y)) byY.set(y, []);
        byY.get(y).push({ curve: curve, point: i, x: t.x[i], y: y });
      }
    });
    return [...byY.keys()].sort((a, b) => a - b).map((y) => byY.get(y).sort((a, b) => a.x - b.x));
  }

  const STEP = {
    ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
  };

  function onRackKey(e) {
    const gd = plot("rack");
    if (!gd || !gd.data || !window.Plotly) return;
    const r = rows(gd);
    if (!r.length) return;
    const c = cursor.rack || { row: 0, col: 0 };
    if (STEP[e.key]) {
      const row = Math.max(0, Math.min(r.length - 1, c.row + STEP[e.key][0]));
      const col = Math.max(0, Math.min(r[row].length - 1, c.col + STEP[e.key][1]));
      cursor.rack = { row: row, col: col };
    } else if ((e.key === "Enter" || e.key === " ") && cursor.rack) {
      const p = r[c.row][c.col];
      press(p.curve, p.point);
    } else return;
    e.preventDefault();
    const p = r[cursor.rack.row][cursor.rack.col];
    hover(gd, { xval: p.x, yval: p.y }, "xy");
  }

  function onMapKey(e) {
    const map = plot("cable-map");
    const meta = map && map.layout && map.layout.meta;
    if (!meta || !window.Plotly) return;
    const rowsN = map.data[0].y.length;
    const c = cursor.map || { row: 0, col: 0 };
    if (STEP[e.key]) {
      cursor.map = {
        row: Math.max(0, Math.min(rowsN - 1, c.row + STEP[e.key][0])),
        col: Math.max(0, Math.min(meta.cols - 1, c.col + STEP[e.key][1])),
      };
    } else if ((e.key === "Enter" || e.key === " ") && cursor.map) {
      press(meta.hits, c.row * meta.cols + c.col);
    } else return;
    e.preventDefault();
    hover(map, { xval: cursor.map.col, yval: cursor.map.row });  // lights the drawing too
  }

  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && page() && page().classList.contains("present")) {
      present(false);
      return;
    }
    const box = e.target && e.target.closest && e.target.closest(".keys");
    if (!box) return;
    if (box.id === "rack-keys") onRackKey(e);
    else if (box.id === "map-keys") onMapKey(e);
  });
})();
