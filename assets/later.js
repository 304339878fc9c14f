/* The page below the first screen is drawn once it first comes near the viewport
(dashboard/panels/below.py): an IntersectionObserver on it (watching from when the rack and
the cards are drawn, so the first screen has its real height) sets the store below-seen, and
`later` then copies the scenario (ready) to ready-later, which the charts, the compare table
and what each feature buys follow. The report buttons set it too (everything is drawn before
a report is printed or saved: window.belowDrawn). */
(function () {
  const MARGIN = "300px";  // a little before it scrolls in: drawn by the time it is seen
  let mounting = false;
  /* Most of the page below is not in the first page's layout (dashboard/panels/lazy.py):
  below-mount asks for it, once, when the reader first comes near it (or a report button is
  pressed). Not before: every component mounted costs each of the renderer's dispatches,
  ~250 of them a press, and a press on the first screen then paid for ~90 components it
  never showed (and the link telemetry's request, whose charts are there). */
  function mount() {
    if (mounting || !(window.dash_clientside && window.dash_clientside.set_props)) return;
    mounting = true;
    window.dash_clientside.set_props("below-mount", { data: true });
  }
  function seen() {
    if (window.dash_clientside && window.dash_clientside.set_props) {
      mount();
      window.dash_clientside.set_props("below-seen", { data: true });
    }
  }
  function rackDrawn() {  // the first screen filled: what is below it is where it will stay
    const gd = document.querySelector("#rack .js-plotly-plot");
    return gd && gd.data && gd.data.length && document.querySelector("#cards .card");
  }
  function watch() {
    const below = document.querySelectorAll(".charts, .compare, .buys");
    const ready = window.dash_clientside && window.dash_clientside.set_props;
    if (!below.length || !ready || !rackDrawn()) return setTimeout(watch, 100);
    const obs = new IntersectionObserver(
      function (entries) {
        if (entries.some((e) => e.isIntersecting)) {
          obs.disconnect();
          seen();
        }
      },
      { rootMargin: MARGIN }
    );
    below.forEach((el) => obs.observe(el));
  }
  watch();
  window.belowSeen = seen;
  /* Every chart below the first screen drawn for the scenario on show: resolves once each
  holds one of the app's figures (its layout names the chart: figures/base.py header; not
  the placeholder it starts with, panels/common.py graph), the
  assumptions' tables are in and no chart has redrawn for 0.4 s (at most `ms`, 60 s). */
  window.belowDrawn = function (ms) {
    seen();
    const until = performance.now() + (ms || 60000);
    let last = performance.now();
    const graphs = () => [...document.querySelectorAll(".charts .js-plotly-plot")];
    function watchAll() {  // the charts mounted since (panels/lazy.py) too
      graphs().forEach(function (g) {
        if (g.on && !g.__belowWatched) {
          g.__belowWatched = true;
          g.on("plotly_afterplot", function () { last = performance.now(); });
        }
      });
    }
    watchAll();
    return new Promise(function (resolve) {
      (function check() {
        watchAll();
        const g = graphs();
        const tables = document.querySelector("#assumptions-body table");  // its own callback
        const drawn = tables && g.length &&
          g.every((d) => d.layout && d.layout.meta && !d.layout.meta.placeholder);
        const now = performance.now();
        if ((drawn && now - last > 400) || now > until) return resolve(drawn);
        setTimeout(check, 100);
      })();
    });
  };
  window.dash_clientside = window.dash_clientside || {};
  window.dash_clientside.below = {
    later: function (ready, seenFlag) {
      if (!seenFlag || ready === undefined || ready === null) {
        return [window.dash_clientside.no_update];
      }
      return [ready];
    },
  };
})();
