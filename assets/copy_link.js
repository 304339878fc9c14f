/* The app's own share link, in one click: the page's URL (the scenario in its query, the
view in its #fragment) to the clipboard, and a word saying it was copied. */
(function () {
  function fallback(text) {  // no async clipboard (an insecure origin): a selected textarea
    const t = document.createElement("textarea");
    t.value = text;
    t.setAttribute("readonly", "");
    t.style.position = "fixed";
    t.style.opacity = "0";
    document.body.appendChild(t);
    t.select();
    const ok = document.execCommand("copy");
    document.body.removeChild(t);
    return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }
  function say(text) {
    window.dash_clientside.set_props("copy-status", { children: text });
  }
  window.dash_clientside = window.dash_clientside || {};
  window.dash_clientside.page = {
    copyLink: function () {
      const url = window.location.href;
      const copy = navigator.clipboard && window.isSecureContext
        ? navigator.clipboard.writeText(url)
        : fallback(url);
      copy.then(
        function () { say("link copied"); },
        function () { say("could not copy: select the address bar instead"); }
      );
      return ["copying…"];
    },
  };
})();
