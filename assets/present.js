/* Presentation mode, the print button and the keyboard (issue 13).

Present (Esc leaves it): the rack and the headline cards only, in large type: a class on
#page, styled in style.css; the scenario and the URL unchanged. The keyboard reaches every
part without a pointer: Tab to the drawing, and the arrow keys walk its parts (up and down a
tray row, left and right along it); Tab on to the cable map, and they walk its cells (a row a
GPU, a column a cable slot). Each is hovered as the pointer would; Enter or Space presses it. */
(function () {
  const page = () => document.getElementById("page");
  function present(on) {
    page().classList.toggle("present", on);
    const b = document.getElementById("present-btn");
    if (b) b.textContent = on ? "Leave presentation (Esc)" : "Present";
    window.dispatchEvent(new Event("resize"));  // the charts refit their new width
  }
  /* The page's drawings as SVG images (plotly's own export), titled, for the HTML report
  the server builds (panels/export.py report). */
  async function drawings() {
    const graphs = [...document.querySelectorAll(".top-rack .js-plotly-plot, .charts .js-plotly-plot")]
      .filter((g) => g.offsetParent !== null && g.layout && g.data);
    const out = [];
    for (const gd of graphs) {
      const size = { width: Math.max(600, gd.clientWidth || 800), height: Math.max(300, gd.clientHeight || 400) };
      const h = gd.closest(".panel") && gd.closest(".panel").querySelector("h2");
      const title = (gd.layout.title && gd.layout.title.text) || (h ? h.textContent : "");
      const src = await window.Plotly.toImage(gd, Object.assign({ format: "svg" }, size));
      out.push({ title: String(title).replace(/<[^>]*>/g, " "), src: src });
    }
    return out;
  }
  /* Print and the report: everything below the first screen drawn first (assets/later.js),
  then the browser's print (laid out by the print style sheet), or the drawings sent. */
  document.addEventListener("click", function (e) {
    const b = e.target;
    if (b && b.id === "present-btn") present(!page().classList.contains("present"));
    if (!b || (b.id !== "print-report" && b.id !== "download-report")) return;
    b.disabled = true;
    window.belowDrawn().then(() => (b.id === "print-report" ? window.print() : drawings().then(
      (images) => window.dash_clientside.set_props("report-images", { data: { images: images, at: Date.now() } }))
    )).finally(() => { b.disabled = false; });
  });

  const STEP = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  const cursor = {};  // where the keyboard is on each view: {row, col}
  const plot = (id) => document.querySelector("#" + id + " .js-plotly-plot");

  /* The drawing's front-view parts (the traces named so) as rows top to bottom, each left to
  right: [{curve, point, x, y}]. */
  function rackRows(gd) {
    const byY = new Map();
    gd.data.forEach(function (t, curve) {
      if (!["trays", "gpus", "chips", "controllers"].includes(t.name)) return;
      t.x.forEach(function (x, i) {
        if (!byY.has(t.y[i])) byY.set(t.y[i], []);
        byY.get(t.y[i]).push({ curve: curve, point: i, x: x, y: t.y[i] });
      });
    });
    return [...byY.keys()].sort((a, b) => a - b).map((y) => byY.get(y).sort((a, b) => a.x - b.x));
  }
  /* The map's cells as rows: a cell its cable's point on the drawing, placed at (col, row). */
  function mapRows(gd) {
    const m = gd.layout.meta;
    return gd.data[0].y.map((_, r) => Array.from({ length: m.cols }, (_, c) =>
      ({ curve: m.hits, point: r * m.cols + c, x: c, y: r })));
  }

  /* A key on a view: a step moves the cursor and hovers the part (on the map, the drawing
  lights too); Enter or Space presses it (assets/rack_press.js), as a click does. */
  function onKey(e, view, gd, rows) {
    if (!rows.length) return;
    const c = cursor[view] || { row: 0, col: 0 };
    if (STEP[e.key]) {
      const row = Math.max(0, Math.min(rows.length - 1, c.row + STEP[e.key][0]));
      const col = Math.max(0, Math.min(rows[row].length - 1, c.col + STEP[e.key][1]));
      cursor[view] = { row: row, col: col };
    } else if ((e.key === "Enter" || e.key === " ") && cursor[view]) {
      const p = rows[c.row][c.col];
      window.rackPress(p.curve, p.point);
    } else return;
    e.preventDefault();
    const p = rows[cursor[view].row][cursor[view].col];
    window.Plotly.Fx.hover(gd, { target: gd, xval: p.x, yval: p.y }, view === "rack" ? "xy" : undefined);
  }

  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && page() && page().classList.contains("present")) return present(false);
    const box = e.target && e.target.closest && e.target.closest(".keys");
    const view = box && { "rack-keys": "rack", "map-keys": "cable-map" }[box.id];
    const gd = view && plot(view);
    if (!gd || !gd.data || !window.Plotly || !(gd.layout && gd.layout.meta)) return;
    onKey(e, view, gd, view === "rack" ? rackRows(gd) : mapRows(gd));
  });
})();
