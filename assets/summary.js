/* The cards, events, readers' questions and counts, written into their places from the
summary's static tree (panels/common.py static_html, panels/cards.py): an element is
[tag, {className, title, open, was}, children], text is text; every string goes in as a text
node, never as HTML. Dash holds none of these elements, so a press does not re-wrap ~80
components at each of its renderer's dispatches (issue 13's press budget). */
(function () {
  const TAGS = new Set(["div", "span", "p", "b", "li", "tr", "td", "details", "summary"]);
  function build(node) {
    if (typeof node === "string") return document.createTextNode(node);
    if (!Array.isArray(node) || !TAGS.has(node[0])) return document.createTextNode("");
    const el = document.createElement(node[0]);
    const props = node[1] || {};
    if (props.className) el.className = props.className;
    if (props.title) el.title = props.title;
    if (props.open) el.open = true;
    if (props.was) el.setAttribute("data-was", props.was);  // the card's value before
    (node[2] || []).forEach((k) => el.appendChild(build(k)));
    return el;
  }
  window.dash_clientside = Object.assign(window.dash_clientside || {}, {
    summary: {
      /* The parts into their places; the answer (summary-drawn) is the search they show. */
      draw: function (data) {
        if (!data || !data.html) return [window.dash_clientside.no_update];
        for (const id in data.html) {
          const box = document.getElementById(id);
          if (box) box.replaceChildren(...data.html[id].map(build));
        }
        return [data.search];
      },
    },
  });
})();
