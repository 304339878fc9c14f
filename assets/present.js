/* Presentation mode (a class on #page, style.css; Esc leaves it), print and the report's drawings
(issue 13), and the keyboard: on the drawing the arrow keys walk its parts (a tray row up or down,
along it left or right), on the cable map its cells; each hovered as a pointer would, Enter presses. */
(function () {
  const page = () => document.getElementById("page");
  function present(on) {
    page().classList.toggle("present", on);
    document.getElementById("present-btn").textContent = on ? "Leave presentation (Esc)" : "Present";
    window.dispatchEvent(new Event("resize"));  // the charts refit their new width
  }
  /* The page's drawings as SVG (plotly's own export), for the report the server builds
  (panels/export.py report), once everything below is drawn (assets/later.js). */
  async function drawings() {
    const out = [];
    for (const gd of document.querySelectorAll(".top-rack .js-plotly-plot, .charts .js-plotly-plot")) {
      if (gd.offsetParent === null || !gd.layout) continue;
      const h = gd.closest(".panel") && gd.closest(".panel").querySelector("h2");
      const title = String((gd.layout.title && gd.layout.title.text) || (h ? h.textContent : ""));
      const size = { width: Math.max(600, gd.clientWidth), height: Math.max(300, gd.clientHeight) };
      const src = await window.Plotly.toImage(gd, Object.assign({ format: "svg" }, size));
      out.push({ title: title.replace(/<[^>]*>/g, " "), src: src });
    }
    window.dash_clientside.set_props("report-images", { data: { images: out, at: Date.now() } });
  }
  document.addEventListener("click", function (e) {
    const b = e.target;
    if (b && b.id === "present-btn") present(!page().classList.contains("present"));
    if (!b || (b.id !== "print-report" && b.id !== "download-report")) return;
    b.disabled = true;
    window.belowDrawn().then(() => (b.id === "print-report" ? window.print() : drawings()))
      .finally(() => { b.disabled = false; });
  });

  const STEP = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  const cursor = {};  // where the keyboard is on each view: {row, col}
  /* A view's parts as rows of [{curve, point, x, y}]: the drawing's front view by y; the map's cells. */
  function rows(view, gd) {
    const m = gd.layout.meta;
    if (view !== "rack") {
      return gd.data[0].y.map((_, r) => Array.from({ length: m.cols }, (_, c) =>
        ({ curve: m.hits, point: r * m.cols + c, x: c, y: r })));
    }
    const byY = new Map();
    gd.data.forEach((t, curve) => ["trays", "gpus", "chips", "controllers"].includes(t.name) &&
      t.x.forEach((x, i) => byY.set(t.y[i], (byY.get(t.y[i]) || []).concat([{ curve, point: i, x, y: t.y[i] }]))));
    return [...byY.keys()].sort((a, b) => a - b).map((y) => byY.get(y).sort((a, b) => a.x - b.x));
  }
  const hover = (view, gd, r = rows(view, gd), p = r[cursor[view].row][cursor[view].col]) =>
    window.Plotly.Fx.hover(gd, { target: gd, xval: p.x, yval: p.y }, view === "rack" ? "xy" : undefined);
  const bound = new WeakSet();  // a redraw (the first autosize, a press) drops the hover: again
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && page() && page().classList.contains("present")) return present(false);
    const box = e.target && e.target.closest && e.target.closest(".keys");
    const view = box && { "rack-keys": "rack", "map-keys": "cable-map" }[box.id];
    const gd = view && document.querySelector("#" + view + " .js-plotly-plot");
    if (!gd || !gd.data || !window.Plotly || !(gd.layout && gd.layout.meta)) return;
    const r = rows(view, gd), c = cursor[view] || { row: 0, col: 0 };
    if (STEP[e.key] && r.length) {
      const row = Math.max(0, Math.min(r.length - 1, c.row + STEP[e.key][0]));
      cursor[view] = { row: row, col: Math.max(0, Math.min(r[row].length - 1, c.col + STEP[e.key][1])) };
    } else if ((e.key === "Enter" || e.key === " ") && cursor[view]) {
      window.rackPress(r[c.row][c.col].curve, r[c.row][c.col].point);  // assets/rack_press.js
    } else return;
    e.preventDefault();
    if (!bound.has(gd) && bound.add(gd)) gd.on("plotly_afterplot", () => box.contains(document.activeElement) && hover(view, gd));
    hover(view, gd, r);
  });
})();
