/* Each headline card says what it was before the last change (issue 13, "what changed"):
the browser keeps the value each card showed for the scenario before this one and, where the
new value differs, writes "was ..." under it (data-was on the card's value, shown by
style.css). Nothing is computed here: both values are the server's text. */
(function () {
  let shown = {};  // card title -> its value, for the scenario on show
  let before = {};  // the same, for the scenario before it
  let search = null;

  function read(cards) {
    const out = {};
    cards.querySelectorAll(".card").forEach(function (c) {
      const t = c.querySelector(".card-title");
      const v = c.querySelector(".card-value");
      if (t && v) out[t.textContent] = v.textContent;
    });
    return out;
  }

  function mark(cards) {
    cards.querySelectorAll(".card").forEach(function (c) {
      const t = c.querySelector(".card-title");
      const v = c.querySelector(".card-value");
      if (!t || !v) return;
      const was = before[t.textContent];
      if (was !== undefined && was !== v.textContent) v.setAttribute("data-was", "was " + was);
      else v.removeAttribute("data-was");
    });
  }

  function update(cards) {
    const now = read(cards);
    if (!Object.keys(now).length) return;
    if (window.location.search !== search) {  // a new scenario: what was shown is "before"
      if (search !== null) before = shown;
      search = window.location.search;
    }
    shown = now;
    mark(cards);
  }

  const watch = new MutationObserver(function () {
    const cards = document.getElementById("cards");
    if (cards) update(cards);
  });
  function start() {
    const cards = document.getElementById("cards");
    if (!cards) return setTimeout(start, 200);
    watch.observe(cards, { childList: true, subtree: true, characterData: true });
    update(cards);
  }
  start();
})();
