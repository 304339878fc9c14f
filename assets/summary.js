/* The cards, the events, the readers' questions and the counts, written into their places
from the summary's static tree (dashboard/panels/common.py static_html; panels/cards.py):
an element is [tag, {className, title, open}, children], text is text. Every string goes in
as a text node, never as HTML. Dash holds none of these elements, so a press no longer
resets and re-wraps ~80 components at each of its renderer's dispatches (issue 13's press
budget); what reads them (assets/cards_delta.js, the report, the tests) sees the same DOM. */
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
    (node[2] || []).forEach(function (k) {
      el.appendChild(build(k));
    });
    return el;
  }

  window.dash_clientside = window.dash_clientside || {};
  window.dash_clientside.summary = {
    /* The summary's parts into their places. Its answer, summary-drawn, is the search they
    show (a clientside callback has an output; this one says what the page holds). */
    draw: function (data) {
      if (!data || !data.html) return [window.dash_clientside.no_update];
      for (const id in data.html) {
        const box = document.getElementById(id);
        if (box) box.replaceChildren.apply(box, data.html[id].map(build));
      }
      return [data.search];
    },
  };
})();
