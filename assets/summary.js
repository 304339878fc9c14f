/* The cards, events, questions and counts written from the summary's static tree (panels/
common.py static_html): [tag, {className, title, open, was}, children] or text, each string
a text node. Dash holds none of them: a press re-wraps no ~80 components (issue 13). */
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
