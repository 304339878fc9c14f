/* The browser's own print (Ctrl+P) and Export's Print button give one paper (issue 28): when
print media comes on, each drawn chart is laid out at its box's width on paper (plotly's public
relayout), and when it goes, back to the screen's. The page's button only draws the charts below
first (window.belowDrawn); both then print through this and the print style sheet. */
(function () {
  const screen = new Map();  // chart -> its screen size, while printing
  function paper(on) {
    document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      if (!gd.layout || !window.Plotly) return;
      if (on && !screen.has(gd)) {
        // null: a size plotly took from its box (autosize) goes back to its box
        screen.set(gd, { width: gd.layout.width ?? null, height: gd.layout.height ?? null });
        const w = gd.parentElement.getBoundingClientRect().width;
        if (w > 0) window.Plotly.relayout(gd, { width: w, height: gd.layout.height });
      } else if (!on && screen.has(gd)) {
        window.Plotly.relayout(gd, screen.get(gd));
        screen.delete(gd);
      }
    });
  }
  window.matchMedia("print").addEventListener("change", function (m) { paper(m.matches); });
  window.addEventListener("beforeprint", function () { paper(true); });
  window.addEventListener("afterprint", function () { paper(false); });
})();
