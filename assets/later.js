/* The page below the first screen is mounted and drawn once the reader first comes near it
(panels/lazy.py, below.py): an IntersectionObserver, set once the rack and cards are drawn,
sets below-mount and below-seen; `later` then copies ready to ready-later. */
(function () {
  let mounted = false;
  function seen() {  // the page below mounted (once) and drawn
    mounted = mounted || (window.dash_clientside.set_props("below-mount", { data: true }), true);
    window.dash_clientside.set_props("below-seen", { data: true });
  }
  function watch() {
    const below = document.querySelectorAll(".charts, .compare, .buys");
    const gd = document.querySelector("#rack .js-plotly-plot");
    const drawn = gd && gd.data && gd.data.length && document.querySelector("#cards .card");
    if (!below.length || !drawn || !window.dash_clientside.set_props) return setTimeout(watch, 100);
    const obs = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) &&
      (obs.disconnect(), seen()), { rootMargin: "300px" });  // drawn by the time it is seen
    below.forEach((el) => obs.observe(el));
  }
  window.dash_clientside = window.dash_clientside || {};
  watch();
  /* Resolves true once every chart below holds the app's figure (not the placeholder), the
  assumptions' tables are in and no chart has redrawn for 0.4 s; false after `ms` (60 s). */
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
