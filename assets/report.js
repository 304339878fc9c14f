/* The report as one HTML file (Export's "Download the report (HTML)"): the scenario, the
cards, what happened, the counts, the rack, the cable map and every chart (as SVG images, from
plotly's own export), the readers' questions and the assumptions, with a print style sheet,
so it reads and prints well anywhere, offline, with no script in it. Everything in it is the
page's own text and drawings, copied once everything below the first screen is drawn
(window.belowDrawn, assets/later.js); nothing is computed here. */
(function () {
  const STYLE = [
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#111;",
    "max-width:1100px;margin:16px auto;padding:0 12px;line-height:1.35}",
    "h1{font-size:1.4rem}h2{font-size:1.1rem;margin:18px 0 6px}h3{font-size:.95rem}",
    ".note{color:#444;font-size:.85rem}",
    ".cards{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:6px}",
    ".card{border:1px solid #bbb;border-radius:6px;padding:6px 8px;break-inside:avoid}",
    ".card-title{font-size:.8rem;color:#444}.card-value{font-size:1.15rem;font-weight:600}",
    ".card-note,.card-healthy{font-size:.72rem;color:#444}",
    "table{border-collapse:collapse;width:100%;font-size:.8rem}",
    "td,th{border:1px solid #ccc;padding:2px 4px;text-align:left;vertical-align:top}",
    "figure{margin:8px 0;break-inside:avoid}figure img{max-width:100%;height:auto;",
    "border:1px solid #ddd}figcaption{font-size:.85rem;color:#444}",  /* each at its size */
    "@media print{body{margin:0;max-width:none}figure,.card,table{break-inside:avoid}}",
  ].join("");

  function esc(text) {
    const d = document.createElement("div");
    d.textContent = text == null ? "" : String(text);
    return d.innerHTML;
  }
  function copy(sel) {  // a part of the page as it is, without its ids (a static copy)
    const el = document.querySelector(sel);
    if (!el) return "";
    const c = el.cloneNode(true);
    c.querySelectorAll("script, button, input, select, textarea").forEach((n) => n.remove());
    c.querySelectorAll("[id]").forEach((n) => n.removeAttribute("id"));
    c.removeAttribute("id");
    return c.outerHTML;
  }
  function heading(gd) {
    const panel = gd.closest(".panel");
    const h = panel && panel.querySelector("h2");
    return h ? h.textContent : "";
  }
  async function image(gd) {
    const w = Math.max(600, Math.round(gd.clientWidth || 800));
    const h = Math.max(300, Math.round(gd.clientHeight || 400));
    return window.Plotly.toImage(gd, { format: "svg", width: w, height: h });
  }
  function filename() {
    const q = window.location.search.replace(/^\?/, "").replace(/[^A-Za-z0-9.,=-]+/g, "_");
    return ("fabric-twin-report" + (q ? "-" + q : "")).slice(0, 120) + ".html";
  }

  async function build() {
    await window.belowDrawn();
    const graphs = [
      ...document.querySelectorAll(".top-rack .js-plotly-plot, .charts .js-plotly-plot"),
    ].filter((g) => g.offsetParent !== null && g.layout && g.data);
    const figures = [];
    for (const gd of graphs) {
      const src = await image(gd);
      const title = (gd.layout.title && gd.layout.title.text) || heading(gd);
      const caption = esc(String(title).replace(/<[^>]*>/g, " "));
      figures.push(
        `<figure><img alt="${caption}" src="${src}"><figcaption>${caption}</figcaption></figure>`
      );
    }
    const scenario = document.querySelector("#scenario-text");
    const when = new Date().toISOString().replace("T", " ").slice(0, 16) + " UTC";
    return [
      "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
      "<meta name='viewport' content='width=device-width, initial-scale=1'>",
      `<title>NVLink fabric twin report</title><style>${STYLE}</style></head><body>`,
      "<h1>NVLink fabric twin: scenario report</h1>",
      `<p class="note">${esc(scenario ? scenario.textContent : "")}<br>`,
      `From ${esc(window.location.href)} on ${esc(when)}. Every number is the twin's model `,
      "answer for this scenario; [A] marks an assumption (see the last section).</p>",
      "<h2>Headline figures</h2>",
      copy("#cards"),
      "<h2>What happened</h2>",
      copy("#events"),
      "<h2>Counts</h2>",
      copy("#counts"),
      "<h2>The rack and the charts</h2>",
      figures.join(""),
      "<h2>Readers' questions, for this scenario</h2>",
      copy("#questions"),
      "<h2>Assumptions and sources</h2>",
      copy("#assumptions-body"),
      "</body></html>",
    ].join("");
  }

  document.addEventListener("click", function (e) {
    if (!e.target || e.target.id !== "download-report") return;
    const b = e.target;
    b.disabled = true;
    build()
      .then(function (html) {
        const a = document.createElement("a");
        a.href = URL.createObjectURL(new Blob([html], { type: "text/html" }));
        a.download = filename();
        document.body.appendChild(a);
        a.click();
        setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
      })
      .catch(function (err) { console.warn("report:", err); })
      .finally(function () { b.disabled = false; });
  });
})();
