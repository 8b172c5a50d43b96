// The console's only script of its own: times in the viewer's time zone. The server writes each
// <time data-local datetime="…Z"> in UTC (what a reader without JavaScript sees); here it becomes
// local time, with the UTC text kept as its title. Runs on load and after every htmx swap.
(function () {
  var full = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  function localise(root) {
    var nodes = root.querySelectorAll("time[data-local]");
    for (var i = 0; i < nodes.length; i++) {
      var el = nodes[i];
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d.getTime())) continue;
      el.title = el.textContent;
      el.textContent = full.format(d);
      el.removeAttribute("data-local");
    }
  }
  function start() {
    localise(document);
    document.body.addEventListener("htmx:after:settle", function () {
      localise(document);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
