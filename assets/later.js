/* The page below the first screen is mounted and drawn once the reader first comes near it
(panels/lazy.py, panels/below.py): an IntersectionObserver, watching once the rack and the
cards are drawn (the first screen at its real height), sets below-mount and below-seen, and
`later` then copies the scenario (ready) to ready-later, which everything below follows. The
report buttons call it too, through window.belowDrawn. */
(function () {
  let seenOnce = false;
  function seen() {
    const set = window.dash_clientside && window.dash_clientside.set_props;
    if (!set) return;
    if (!seenOnce) set("below-mount", { data: true });
    seenOnce = true;
    set("below-seen", { data: true });
  }
  function watch() {
    const below = document.querySelectorAll(".charts, .compare, .buys");
    const gd = document.querySelector("#rack .js-plotly-plot");
    const drawn = gd && gd.data && gd.data.length && document.querySelector("#cards .card");
    if (!below.length || !drawn || !window.dash_clientside.set_props) return setTimeout(watch, 100);
    const obs = new IntersectionObserver(function (entries) {
      if (entries.some((e) => e.isIntersecting)) {
        obs.disconnect();
        seen();
      }
    }, { rootMargin: "300px" });  // a little before it scrolls in: drawn by the time it is seen
    below.forEach((el) => obs.observe(el));
  }
  window.dash_clientside = window.dash_clientside || {};
  watch();
  window.belowSeen = seen;
  /* Resolves (true) once every chart below holds one of the app's figures (its layout.meta,
  not the placeholder's: panels/common.py graph), the assumptions' tables are in and no chart
  has redrawn (plotly_afterplot) for 0.4 s; false after `ms` (60 s). */
  window.belowDrawn = function (ms) {
    seen();
    const until = performance.now() + (ms || 60000);
    let last = performance.now();
    return new Promise(function check(resolve) {
      const g = [...document.querySelectorAll(".charts .js-plotly-plot")];
      g.forEach(function (d) {
        if (!d.on || d.belowWatched) return;
        d.on("plotly_afterplot", () => { last = performance.now(); });
        d.belowWatched = true;
      });
      const drawn = !!document.querySelector("#assumptions-body table") && g.length > 0 &&
        g.every((d) => d.layout && d.layout.meta && !d.layout.meta.placeholder);
      const now = performance.now();
      if ((drawn && now - last > 400) || now > until) return resolve(drawn);
      setTimeout(() => check(resolve), 100);
    });
  };
  window.dash_clientside.below = {
    later: (ready, seenFlag) => [!seenFlag || ready == null ? window.dash_clientside.no_update : ready],
  };
})();
