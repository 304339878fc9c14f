/* A fault chip's x: which fault, to chip-pick; the server takes it out of the URL's scenario
(panels/faults.py, which keeps undo / redo too). */
(function () {
  document.addEventListener("click", function (e) {
    const chip = e.target && e.target.closest && e.target.closest(".chip[data-id]");
    if (!chip) return;
    window.dash_clientside.set_props("chip-pick", { data: { kind: chip.dataset.kind, id: chip.dataset.id, at: performance.now() } });
  });
})();
