/* The fault chips' x (the fault to chip-pick; the server takes it out of the URL) and undo /
redo (panels/faults.py) through the queries this tab has shown: `track` keeps the newest 50
and where the page is among them, `step` moves there and sets the URL's query. */
(function () {
  const MAX = 50;
  document.addEventListener("click", function (e) {
    const chip = e.target && e.target.closest && e.target.closest(".chip[data-id]");
    if (!chip) return;
    window.dash_clientside.set_props("chip-pick", { data: { kind: chip.dataset.kind, id: chip.dataset.id, at: performance.now() } });
  });
  const valid = (h) => h && Array.isArray(h.stack) && Number.isInteger(h.at) && h.at < h.stack.length;
  window.dash_clientside = window.dash_clientside || {};
  window.dash_clientside.faults = {
    track: function (search, hist) {
      const none = window.dash_clientside.no_update;
      const q = search || "";
      const h = valid(hist) ? hist : { stack: [], at: -1 };
      if (h.at >= 0 && h.stack[h.at] === q) {  // a step of undo or redo landing
        return [none, h.at <= 0, h.at >= h.stack.length - 1];
      }
      const stack = h.stack.slice(0, h.at + 1).concat([q]).slice(-MAX);
      return [{ stack: stack, at: stack.length - 1 }, stack.length <= 1, true];
    },
    step: function (undo, redo, hist) {
      const none = window.dash_clientside.no_update;
      const ctx = window.dash_clientside.callback_context;
      if (!valid(hist) || !ctx || !ctx.triggered_id) return [none, none];
      const at = hist.at + (ctx.triggered_id === "undo-btn" ? -1 : 1);
      if (at < 0 || at >= hist.stack.length) return [none, none];
      return [hist.stack[at], { stack: hist.stack, at: at }];
    },
  };
})();
